#!/bin/sh
set -eu
git init -q -b main
echo "# project" > README.md
git add README.md
git commit -qm "first commit"
echo "draft" > notes.txt
