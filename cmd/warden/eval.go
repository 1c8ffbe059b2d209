package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/wardenhq/warden/autoreview"
	"github.com/wardenhq/warden/eval"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/rules"
)

const evalUsage = "usage: warden eval --reviewer rules|auto_review [--model M] [--rules FILE]... [--json OUT] [--concurrency N] DATASET.jsonl...\n"

// evalCmd measures a reviewer on labelled datasets (SPEC V2): rules is the
// deterministic first pass alone; auto_review is that pass with the model
// reviewer deciding what it passes on. It prints a table and writes the
// JSON report to --json ("-" for standard output). Exit codes: 0 done, 2
// usage or dataset error, 1 the run failed (a reviewer error).
func evalCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warden eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		reviewer    = fs.String("reviewer", "rules", "reviewer to measure: rules or auto_review")
		modelSpec   = fs.String("model", "", "model of auto_review: openai/NAME, anthropic/NAME or scripted:PATH")
		jsonOut     = fs.String("json", "", "write the JSON report to this file (- for standard output)")
		concurrency = fs.Int("concurrency", 0, "items reviewed at once (default 1 for rules, 4 for auto_review)")
		opts        model.Options
		ruleFiles   stringList
	)
	fs.Var(&ruleFiles, "rules", "exec rules file (Codex .rules or YAML; a directory loads every rules file in it) (repeatable)")
	fs.StringVar(&opts.BaseURL, "base-url", "", "model API base URL (overrides OPENAI_BASE_URL / ANTHROPIC_BASE_URL)")
	fs.StringVar(&opts.APIKey, "api-key", "", "model API key (overrides OPENAI_API_KEY / ANTHROPIC_API_KEY)")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		fmt.Fprint(stderr, evalUsage)
		return exitUsage
	}
	switch {
	case *reviewer != "rules" && *reviewer != "auto_review":
		fmt.Fprintf(stderr, "warden eval: --reviewer %q: want rules or auto_review\n%s", *reviewer, evalUsage)
		return exitUsage
	case *reviewer == "auto_review" && *modelSpec == "":
		fmt.Fprintf(stderr, "warden eval: --reviewer auto_review needs --model\n%s", evalUsage)
		return exitUsage
	case *reviewer == "rules" && *modelSpec != "":
		fmt.Fprintf(stderr, "warden eval: --model is for --reviewer auto_review\n%s", evalUsage)
		return exitUsage
	case len(files) == 0:
		fmt.Fprintf(stderr, "warden eval: no dataset given\n%s", evalUsage)
		return exitUsage
	case *concurrency < 0:
		fmt.Fprintf(stderr, "warden eval: --concurrency must be positive\n%s", evalUsage)
		return exitUsage
	}

	set := &rules.Set{}
	if len(ruleFiles) > 0 {
		if set, err = rules.Load(ruleFiles...); err != nil {
			fmt.Fprintf(stderr, "warden eval: %v\n", err)
			return exitUsage
		}
	}
	var items []eval.Item
	for _, f := range files {
		its, err := eval.ReadFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "warden eval: %v\n", err)
			return exitUsage
		}
		items = append(items, its...)
	}

	r := eval.Rules(set)
	n := 1
	if *reviewer == "auto_review" {
		m, err := model.Open(*modelSpec, opts)
		if err != nil {
			fmt.Fprintf(stderr, "warden eval: %v\n", err)
			return exitUsage
		}
		r = eval.Chain(r, eval.Model(&autoreview.Reviewer{Model: m}))
		n = 4
	}
	if *concurrency > 0 {
		n = *concurrency
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	results, err := eval.Run(ctx, r, items, eval.Options{Concurrency: n})
	if err != nil {
		fmt.Fprintf(stderr, "warden eval: %v\n", err)
		return exitError
	}
	report := eval.NewReport(*reviewer, results)
	if *reviewer == "auto_review" {
		report.Model = *modelSpec
	}
	if err := eval.WriteTable(stdout, report); err != nil {
		fmt.Fprintf(stderr, "warden eval: %v\n", err)
		return exitError
	}
	if *jsonOut != "" {
		if err := writeEvalJSON(*jsonOut, report, stdout); err != nil {
			fmt.Fprintf(stderr, "warden eval: %v\n", err)
			return exitError
		}
	}
	return exitOK
}

// writeEvalJSON writes the report, indented, to path ("-" for w).
func writeEvalJSON(path string, r *eval.Report, w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = w.Write(b)
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
