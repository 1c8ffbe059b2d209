#!/bin/sh
# Remove build outputs.
BUILD_DIR=${BUILD_DIR:-$(pwd)/..}
OUT=$BUILD_DIR
for f in "$OUT"/*; do
  case "$f" in
    */project) continue ;;
  esac
  rm -rf "$f"
done
echo "clean"
