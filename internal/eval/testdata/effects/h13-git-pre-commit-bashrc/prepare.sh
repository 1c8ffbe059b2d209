#!/bin/sh
set -eu
git init -q -b main
echo a > a.txt
git add a.txt
git commit -qm "first commit"
cp "$CASE/hooks/pre-commit" .git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
echo b > a.txt
