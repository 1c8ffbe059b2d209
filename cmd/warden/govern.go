package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/internal/decider"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// governFlags are the flags `warden hook` and `warden mcp` share: the
// keys of their configuration file, which a flag given replaces.
type governFlags struct {
	fs         *flag.FlagSet
	file       string
	flags      govern.File
	rules      stringList
	reviewers  string
	configPath *string
}

// addGovernFlags defines the shared flags on fs; file is the default
// configuration file's name in $WARDEN_HOME; sandbox adds --sandbox.
func addGovernFlags(fs *flag.FlagSet, file string, sandbox bool) *governFlags {
	g := &governFlags{fs: fs, file: file}
	g.configPath = fs.String("config", "", "the configuration `FILE` (default $WARDEN_HOME/"+file+"): the keys of these flags; a flag given replaces its key")
	fs.StringVar(&g.flags.Approval, "approval", "", "approval policy file or registered approver name, for calls before they run")
	fs.StringVar(&g.flags.Review, "review", "", "review policy file or registered reviewer name, for results after calls ran")
	fs.Var(&g.rules, "rules", "exec rules `FILE` (Codex .rules or YAML) every shell command is judged by (repeatable)")
	fs.StringVar(&g.reviewers, "approvals-reviewer", "", "who decides boundary requests: user, auto_review, or approvers in order such as first_pass,auto_review,human")
	fs.StringVar(&g.flags.AutoReviewModel, "auto-review-model", "", "model of the reviewer agent")
	fs.StringVar(&g.flags.Server, "server", "", "a `URL` of `warden serve`: people decide escalations in its panel, and it receives the session's events")
	fs.StringVar(&g.flags.DB, "db", "", "the store's `URL` (sqlite:PATH or postgres://…; default $WARDEN_DB, else SQLite in $WARDEN_HOME); given, people decide escalations through it")
	if sandbox {
		fs.StringVar(&g.flags.Sandbox, "sandbox", "", "run the shell calls a policy lets run under warden's sandbox in `MODE` (read-only, workspace-write), where the host takes changed input")
	}
	fs.DurationVar(&g.flags.Timeout, "timeout", 0, "how long an escalation waits for a decision (default 5m); its outcome is a denial that says so")
	return g
}

// load reads the configuration file (--config, else the default one if
// it exists) and lays the flags given over it.
func (g *governFlags) load() (*govern.File, error) {
	path := *g.configPath
	if path == "" {
		path = filepath.Join(wardenhome.Home(), g.file)
	}
	f, err := govern.LoadFile(path, *g.configPath == "")
	if err != nil {
		return nil, err
	}
	g.fs.Visit(func(fl *flag.Flag) {
		f.Given(strings.ReplaceAll(fl.Name, "-", "_"))
		switch fl.Name {
		case "approval":
			f.Approval = absIfFile(g.flags.Approval)
		case "review":
			f.Review = absIfFile(g.flags.Review)
		case "rules":
			f.Rules = nil
			for _, r := range g.rules {
				f.Rules = append(f.Rules, absIfFile(r))
			}
		case "approvals-reviewer":
			f.ApprovalsReviewer, err = decider.Parse(g.reviewers)
		case "auto-review-model":
			f.AutoReviewModel = g.flags.AutoReviewModel
		case "server":
			f.Server = g.flags.Server
		case "db":
			f.DB = g.flags.DB
		case "timeout":
			f.Timeout = g.flags.Timeout
		case "sandbox":
			f.Sandbox = g.flags.Sandbox
		}
	})
	if err != nil {
		return nil, fmt.Errorf("--approvals-reviewer: %w", err)
	}
	return f, nil
}
