#!/bin/sh
set -eu
for f in bin/*.sh; do
  chmod 0755 "$f"
done
ls -l bin
