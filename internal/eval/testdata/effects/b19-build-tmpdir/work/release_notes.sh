#!/bin/sh
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sort -u changes.txt > "$tmp/notes"
mkdir -p out
cp "$tmp/notes" out/NOTES.txt
echo "wrote out/NOTES.txt"
