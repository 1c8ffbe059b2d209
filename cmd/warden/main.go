// Command warden governs what AI agents do with their tools. See README.md.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	_ "github.com/wardenhq/warden/model/anthropic"
	_ "github.com/wardenhq/warden/model/openai"
	_ "github.com/wardenhq/warden/model/scripted"
	_ "github.com/wardenhq/warden/tool/bash"
	_ "github.com/wardenhq/warden/tool/editor"
)

// Exit codes of warden run (a contract: see README.md).
const (
	exitOK      = 0
	exitError   = 1
	exitUsage   = 2
	exitLimited = 3
)

const usage = `usage:
  warden run TASK.yaml [--model M] [--approval X] [--review X] [--transcript PATH] [--max-output N]
                     [--sandbox MODE] [--sandbox-unenforced] [--rules FILE]...
                     [--approvals-reviewer user|auto_review] [--auto-review-model M]
                     [--pin-policy] [--max-concurrent-calls N] [--max-calls-per-message N]
  warden run --resume RUN_ID --input TEXT [flags]
  warden policy check FILE...
  warden transcript show FILE
  warden exec [--sandbox MODE] [--writable-root DIR]... [--network] [--sandbox-unenforced] -- CMD...
  warden rules check [--rules FILE]... -- CMD...
  warden auto-review policy
  warden eval --reviewer rules|auto_review|LIST [--model M] [--rules FILE]... [--json OUT] DATASET.jsonl...
  warden auto-review approve DENIAL_ID --run RUN_ID [--note TEXT]
`

func main() {
	os.Exit(mainCode(os.Args[1:], os.Stdout, os.Stderr))
}

func mainCode(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "policy":
		if len(args) < 2 || args[1] != "check" {
			fmt.Fprint(stderr, "usage: warden policy check FILE...\n")
			return exitUsage
		}
		return policyCheck(args[2:], stdout, stderr)
	case "transcript":
		if len(args) < 2 || args[1] != "show" {
			fmt.Fprint(stderr, "usage: warden transcript show FILE\n")
			return exitUsage
		}
		return transcriptShow(args[2:], stdout, stderr)
	case "eval":
		return evalCmd(args[1:], stdout, stderr)
	case "auto-review":
		return autoReviewCmd(args[1:], stdout, stderr)
	case "exec":
		return execCmd(args[1:], stdout, stderr)
	case "rules":
		if len(args) < 2 || args[1] != "check" {
			fmt.Fprint(stderr, "usage: warden rules check [--rules FILE]... -- CMD...\n")
			return exitUsage
		}
		return rulesCheck(args[2:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "warden: unknown command %q\n%s", args[0], usage)
	return exitUsage
}

// parseInterleaved parses flags that may come before or after positional
// arguments, as in `warden run task.yaml --model M`.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
