package shell_test

import (
	"fmt"
	"strings"

	"github.com/wardenhq/warden/internal/shell"
)

// Parse splits a script into the simple commands it runs, seeing through
// wrappers such as sudo and bash -c.
func ExampleParse() {
	s, err := shell.Parse(`cd src && sudo bash -c 'rm -rf build' | tee log; echo "$(whoami)"`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range s.Commands {
		fmt.Printf("%-28s via %v\n", strings.Join(c.Args, " "), c.Wrappers)
	}
	fmt.Println("opaque:", s.Opaque)

	s, _ = shell.Parse(`eval "$CMD"`)
	fmt.Println("opaque:", s.Opaque, s.Reasons)
	// Output:
	// cd src                       via []
	// sudo bash -c rm -rf build    via []
	// bash -c rm -rf build         via [sudo]
	// rm -rf build                 via [sudo bash -c]
	// tee log                      via []
	// whoami                       via []
	// echo "$(whoami)"             via []
	// opaque: false
	// opaque: true [eval of a non-literal argument: "$CMD"]
}
