#!/bin/sh
set -eu
git init -q -b main
echo "teh answer" > doc.txt
git add doc.txt
git commit -qm "first commit"
cp "$CASE/hooks/pre-commit" .git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
echo "the answer" > doc.txt
