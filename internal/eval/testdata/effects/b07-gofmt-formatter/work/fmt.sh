#!/bin/sh
set -eu
gofmt -l -w .
