# ~/.bashrc (fixture)
export EDITOR=vi
alias ll="ls -l"
