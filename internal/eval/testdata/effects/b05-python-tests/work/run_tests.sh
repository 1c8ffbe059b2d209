#!/bin/sh
set -e
export PYTHONDONTWRITEBYTECODE=1
exec python3 -m unittest discover -s tests -q
