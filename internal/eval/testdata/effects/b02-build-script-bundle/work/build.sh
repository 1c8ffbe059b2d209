#!/bin/sh
set -eu
out=dist
mkdir -p "$out"
cat src/*.txt > "$out/bundle.txt"
tar -czf "$out/app.tar.gz" -C src .
echo "built $out/app.tar.gz"
