package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/wardenhq/warden/internal/approvalsreviewer"
	"github.com/wardenhq/warden/internal/decider"
	"github.com/wardenhq/warden/internal/eval"
	"github.com/wardenhq/warden/model"
)

const evalUsage = `usage: warden eval --reviewer first_pass|auto_review|LIST [--model M] [--rules FILE]... [--json OUT]
                   [--items OUT] [--concurrency N] [--base-url URL] [--api-key KEY] DATASET.jsonl...

Measures a boundary decider on labelled datasets: prints a table, writes
the JSON report to --json and one JSON line per item (its label, the
decision and the deciding step's reason) to --items.
`

// evalCmd measures the boundary decider `warden run` ships on labelled
// datasets (SPEC V2), built by the same constructor (package
// internal/decider) from --reviewer, which takes the values of
// approvals_reviewer: first_pass is the first pass alone (rules, its old
// name, is accepted with a warning); auto_review is the first pass with
// the model reviewer deciding what it passes on; a list such as
// first_pass,auto_review names approvers asked in order. A person in
// the list (user, human) never answers: what reaches them counts as
// escalated. It writes the JSON report to --json and one line per item to
// --items, then prints a table (and the report, with --json -). The files
// are written before anything goes to stdout, and a stdout closed early
// (warden eval … | head -1) is not an error. Exit codes: 0 done, 2 usage
// or dataset error, 1 the run failed (a reviewer error, or a file could
// not be written).
func evalCmd(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden eval", evalUsage, stderr)
	fs := c.fs
	var (
		reviewer    = fs.String("reviewer", approvalsreviewer.FirstPass, "approvals reviewer to measure: first_pass, auto_review or a list such as first_pass,auto_review")
		modelSpec   = fs.String("model", "", "model of auto_review: openai/NAME, anthropic/NAME or scripted:PATH")
		jsonOut     = fs.String("json", "", "write the JSON report to this file (- for standard output)")
		itemsOut    = fs.String("items", "", "write one JSON line per item (id, label, decision, deciding step's reason) to this file")
		concurrency = fs.Int("concurrency", 0, "items reviewed at once (default 1 for first_pass, 4 with auto_review)")
		opts        model.Options
		ruleFiles   stringList
	)
	fs.Var(&ruleFiles, "rules", "exec rules `FILE` (Codex .rules or YAML; a directory loads every rules file in it) (repeatable)")
	fs.StringVar(&opts.BaseURL, "base-url", "", "model API base URL (overrides OPENAI_BASE_URL / ANTHROPIC_BASE_URL)")
	fs.StringVar(&opts.APIKey, "api-key", "", "model API key (overrides OPENAI_API_KEY / ANTHROPIC_API_KEY)")
	files, code, ok := c.parse(args, true, stdout)
	if !ok {
		return code
	}
	var who []string
	var err error
	if strings.TrimSpace(*reviewer) != "" {
		who, err = approvalsreviewer.Parse(*reviewer)
	}
	withModel := slices.Contains(who, approvalsreviewer.AutoReview)
	switch {
	case who == nil || err != nil:
		fmt.Fprintf(stderr, "warden eval: --reviewer %q: want first_pass, auto_review or a list of approvers such as first_pass,auto_review\n%s", *reviewer, evalUsage)
		return exitUsage
	case withModel && *modelSpec == "":
		fmt.Fprintf(stderr, "warden eval: --reviewer %s needs --model\n%s", *reviewer, evalUsage)
		return exitUsage
	case !withModel && *modelSpec != "":
		fmt.Fprintf(stderr, "warden eval: --model is for --reviewer auto_review\n%s", evalUsage)
		return exitUsage
	case len(files) == 0:
		fmt.Fprintf(stderr, "warden eval: no dataset given\n%s", evalUsage)
		return exitUsage
	case *itemsOut == "-":
		fmt.Fprintf(stderr, "warden eval: --items takes a file, not -\n%s", evalUsage)
		return exitUsage
	case *concurrency < 0:
		fmt.Fprintf(stderr, "warden eval: --concurrency must be positive\n%s", evalUsage)
		return exitUsage
	}

	// `--json *.jsonl` makes the first dataset the report's file: refused
	// before anything is read or written, so that no dataset is lost.
	for _, out := range []struct{ flag, path string }{{"--json", *jsonOut}, {"--items", *itemsOut}} {
		if in := datasetAt(out.path, files); in != "" {
			fmt.Fprintf(stderr, "warden eval: %s %s is the dataset %s: it would be overwritten\n%s", out.flag, out.path, in, evalUsage)
			return exitUsage
		}
	}
	for _, w := range approvalsreviewer.Warnings(who) {
		fmt.Fprintf(stderr, "warden eval: warning: --reviewer: %s\n", w)
	}
	items, err := eval.ReadFiles(files...)
	if err != nil {
		fmt.Fprintf(stderr, "warden eval: %v\n", err)
		return exitUsage
	}
	// The reviewer agent's read-only tools see an empty workspace: the
	// items' own workspaces are not on this machine.
	workdir, err := os.MkdirTemp("", "warden-eval-")
	if err != nil {
		fmt.Fprintf(stderr, "warden eval: %v\n", err)
		return exitError
	}
	defer os.RemoveAll(workdir)
	p, err := decider.New(decider.Config{
		Reviewers: who, RuleFiles: ruleFiles,
		ReviewModel: *modelSpec, ModelOptions: opts,
		Workdir: workdir, Person: eval.PassOn(),
	})
	if err != nil {
		fmt.Fprintf(stderr, "warden eval: %v\n", err)
		return exitUsage
	}
	n := 1
	if withModel {
		n = 4
	}
	if *concurrency > 0 {
		n = *concurrency
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	results, err := eval.Run(ctx, eval.Decider(p), items, eval.Options{Concurrency: n})
	if err != nil {
		fmt.Fprintf(stderr, "warden eval: %v\n", err)
		return exitError
	}
	report := eval.NewReport(strings.Join(who, ","), results)
	if withModel {
		report.Model = *modelSpec
	}
	// Files first: a reader of stdout that stops early must not cost them.
	if *itemsOut != "" {
		if err := writeEvalItems(*itemsOut, results); err != nil {
			fmt.Fprintf(stderr, "warden eval: %v\n", err)
			return exitError
		}
	}
	if *jsonOut != "" && *jsonOut != "-" {
		if err := writeEvalJSON(*jsonOut, report, stdout); err != nil {
			fmt.Fprintf(stderr, "warden eval: %v\n", err)
			return exitError
		}
	}
	// A closed stdout fails the write with EPIPE instead of killing the
	// process with SIGPIPE; what was to be written is dropped.
	signal.Ignore(syscall.SIGPIPE)
	err = eval.WriteTable(stdout, report)
	if err == nil && *jsonOut == "-" {
		err = writeEvalJSON(*jsonOut, report, stdout)
	}
	if err != nil && !errors.Is(err, syscall.EPIPE) {
		fmt.Fprintf(stderr, "warden eval: %v\n", err)
		return exitError
	}
	return exitOK
}

// writeEvalItems writes the items' lines to path.
func writeEvalItems(path string, results []eval.Result) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write items: %w", err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("write items: %w", cerr)
		}
	}()
	return eval.WriteItems(f, results)
}

// writeEvalJSON writes the report, indented, to path ("-" for w).
func writeEvalJSON(path string, r *eval.Report, w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	b = append(b, '\n')
	if path == "-" {
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		return nil
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// datasetAt returns the dataset among files that out names (the same file,
// by any path or link), or "" when out names none of them (or is "", "-"
// or not there yet).
func datasetAt(out string, files []string) string {
	if out == "" || out == "-" {
		return ""
	}
	o, err := os.Stat(out)
	if err != nil {
		return ""
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && os.SameFile(o, fi) {
			return f
		}
	}
	return ""
}
