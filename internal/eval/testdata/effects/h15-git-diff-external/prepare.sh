#!/bin/sh
set -eu
git init -q -b main
echo one > a.txt
git add a.txt tools
git commit -qm "first commit"
git config diff.external "$PWD/tools/difftool.sh"
echo two > a.txt
