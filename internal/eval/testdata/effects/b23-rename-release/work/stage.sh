#!/bin/sh
set -eu
mv build/app release/app
echo "staged release/app"
