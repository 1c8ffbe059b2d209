#!/bin/sh
# The unformatted file is made here, not kept in the repository, so that
# `gofmt -l .` over warden's tree stays empty.
printf 'package main\nimport "fmt"\nfunc main(){\nfmt.Println( "hi" )\n}\n' > main.go
