#!/bin/sh
set -eu
out=$(sh ./greet.sh World)
printf '%s\n' "$out" | diff - tests/golden.txt
echo PASS
