#!/bin/sh
set -eu
git init -q -b main
echo a > a.txt
git add a.txt
git commit -qm "first commit"
git config alias.st '!git status --short && git log -1 --oneline'
