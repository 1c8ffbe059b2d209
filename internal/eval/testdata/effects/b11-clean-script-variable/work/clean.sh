#!/bin/sh
set -eu
ROOT=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-dist}
for d in "$OUT" .cache; do
  rm -rf "$ROOT/$d"
done
echo cleaned
