# ~/.profile (fixture)
[ -f ~/.bashrc ] && . ~/.bashrc
