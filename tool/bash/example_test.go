package bash_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/bash"
)

func Example() {
	dir, err := os.MkdirTemp("", "bash-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	sh := bash.New(bash.Options{Dir: dir, Timeout: 10 * time.Second})
	out, err := sh.Run(context.Background(), json.RawMessage(`{"cmd": "echo hello > greeting.txt; cat greeting.txt; cat missing.txt"}`))
	if err != nil {
		fmt.Println("error:", tool.AsError(err))
		return
	}
	fmt.Println(out)

	// A command that outlives its timeout is killed.
	quick := bash.New(bash.Options{Dir: dir, Timeout: 100 * time.Millisecond})
	_, err = quick.Run(context.Background(), json.RawMessage(`{"cmd": "sleep 10"}`))
	fmt.Println(tool.AsError(err))
	// Output:
	// hello
	// cat: missing.txt: No such file or directory
	// [exit status 1]
	// timeout: command timed out after 100ms with no output
}
