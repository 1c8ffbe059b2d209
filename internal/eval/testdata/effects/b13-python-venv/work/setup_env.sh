#!/bin/sh
set -eu
python3 -m venv --without-pip .venv
echo "venv ready: .venv"
