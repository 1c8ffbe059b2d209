// Command warden governs what AI agents do with their tools. See README.md.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/wardenhq/warden/internal/serve"
	"github.com/wardenhq/warden/internal/wardenhome"
	_ "github.com/wardenhq/warden/model/anthropic"
	_ "github.com/wardenhq/warden/model/openai"
	_ "github.com/wardenhq/warden/model/scripted"
	_ "github.com/wardenhq/warden/tool/bash"
	_ "github.com/wardenhq/warden/tool/editor"
)

// Exit codes of warden run (a contract: see docs/cli.md).
const (
	exitOK      = 0
	exitError   = 1
	exitUsage   = 2
	exitLimited = 3
)

// usage is the top-level usage: every command with every flag, the same
// lines as README's Commands block (a test keeps them together).
const usage = `usage:
  warden run TASK.yaml [--model M] [--approval X] [--review X] [--transcript PATH] [--max-output N]
                     [--base-url URL] [--api-key KEY] [--quiet] [--interactive]
                     [--approvals-reviewer user|auto_review|LIST] [--auto-review-model M]
                     [--sandbox MODE] [--sandbox-unenforced] [--rules FILE]...
                     [--pin-policy] [--max-concurrent-calls N] [--max-calls-per-message N] [--keep-workdir]
                     [--server URL] [--db URL]
  warden run --resume RUN_ID --input TEXT [--transcript PATH] [flags]
  warden check TASK.yaml... [--model M] [--approval X] [--review X] [--sandbox MODE] [--rules FILE]... [flags of run]
  warden policy check FILE...
  warden transcript show FILE
  warden transcript verify FILE...
  warden transcript import [--db URL] FILE...
  warden exec [--sandbox MODE] [--writable-root DIR]... [--network] [--sandbox-unenforced] -- CMD...
  warden rules check [--rules FILE]... -- CMD...
  warden auto-review policy
  warden auto-review approve DENIAL_ID --run RUN_ID [--note TEXT] [--transcript PATH]
  warden eval --reviewer first_pass|auto_review|LIST [--model M] [--rules FILE]... [--json OUT]
              [--items OUT] [--concurrency N] [--base-url URL] [--api-key KEY] DATASET.jsonl...
  warden serve [--addr HOST:PORT] [--db URL] [--insecure-remote] [--tls-cert FILE --tls-key FILE]
  warden operator add NAME [--db URL]
  warden operator list [--db URL]
  warden hook HOST [--config FILE] [--approval X] [--review X] [--rules FILE]... [--sandbox MODE]
                   [--approvals-reviewer user|auto_review|LIST] [--server URL] [--db URL]
  warden hook install HOST [--scope user|project] [--uninstall]
  warden hook doctor HOST [--scope user|project]
  warden mcp [--approval X] [--review X] [--mode MODE] [--tool-mode TOOL=MODE]... [--server URL] [--db URL] -- UPSTREAM_CMD...
  warden version

"warden COMMAND --help" describes a command and its flags.
`

func main() {
	// A secret of warden's state with another name (a hard link), which
	// the sandbox does not hide, is replaced before anything uses it (SPEC
	// G16); whatever cannot be replaced stays refused by its reader.
	_ = wardenhome.RetireExposed(serve.TokenPath(), wardenhome.KeyPath())
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
	case "check":
		return checkCmd(args[1:], stdout, stderr)
	case "version", "--version":
		return versionCmd(args[1:], stdout, stderr)
	case "policy":
		return subcommand(args[1:], "check", policyUsage, policyCheck, stdout, stderr)
	case "transcript":
		if len(args) > 1 && args[1] == "import" {
			return transcriptImport(args[2:], stdout, stderr)
		}
		if len(args) > 1 && args[1] == "verify" {
			return transcriptVerify(args[2:], stdout, stderr)
		}
		return subcommand(args[1:], "show", transcriptUsage, transcriptShow, stdout, stderr)
	case "eval":
		return evalCmd(args[1:], stdout, stderr)
	case "auto-review":
		return autoReviewCmd(args[1:], stdout, stderr)
	case "exec":
		return execCmd(args[1:], stdout, stderr)
	case "rules":
		return subcommand(args[1:], "check", rulesUsage, rulesCheck, stdout, stderr)
	case "serve":
		return serveCmd(args[1:], stdout, stderr)
	case "operator":
		return operatorCmd(args[1:], stdout, stderr)
	case "hook":
		return hookCmd(args[1:], os.Stdin, stdout, stderr)
	case "mcp":
		return mcpCmd(args[1:], os.Stdin, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "warden: unknown command %q\n%s", args[0], usage)
	return exitUsage
}

// subcommand runs the only subcommand name of a command, run, with the
// arguments after it. Without it, -h or --help prints usage to stdout
// (exit 0); anything else prints it to stderr (exit 2).
func subcommand(args []string, name, usage string, run func([]string, io.Writer, io.Writer) int, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && args[0] == name:
		return run(args[1:], stdout, stderr)
	case wantsHelp(args):
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprint(stderr, usage)
	return exitUsage
}
