package govern

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/wardenhq/warden/internal/approvalsreviewer"
	"github.com/wardenhq/warden/internal/filepos"
	"github.com/wardenhq/warden/internal/sandboxmode"
)

// File is the configuration file of a governed session: `warden hook`'s
// ($WARDEN_HOME/hooks.yaml) and `warden mcp`'s ($WARDEN_HOME/mcp.yaml, which
// has no sandbox key), or --config: the keys of their flags, which replace
// them when given.
//
//	approval: policy.yaml            # or a registered approver name
//	review: review.yaml
//	rules: [default.rules]
//	approvals_reviewer: [first_pass, auto_review]
//	auto_review_model: openai/gpt-5-mini
//	server: https://127.0.0.1:8080
//	db: sqlite:/var/lib/warden.db
//	timeout: 10m                    # how long an escalation waits
//	sandbox: workspace-write         # shell calls run under warden's sandbox
type File struct {
	Approval          string
	Review            string
	Rules             []string
	ApprovalsReviewer []string
	AutoReviewModel   string
	Server            string
	DB                string
	Timeout           time.Duration
	// Sandbox is the sandbox mode shell calls run under where the host
	// takes changed input ("" for none).
	Sandbox string
	// Path is the file read, and Dir its directory: relative paths of
	// the file are against it ("" for the flags: the working directory).
	Path, Dir string
	// at are the positions of the keys the file gives.
	at map[string]filepos.Pos
}

// At wraps err, a problem with what key names, with the key's position in
// the file (file:line:col), or with the flag's name when no file gave it.
func (f *File) At(key string, err error) error {
	if p, ok := f.at[key]; ok {
		return fmt.Errorf("%s: %s: %w", p, key, err)
	}
	return fmt.Errorf("--%s: %w", strings.ReplaceAll(key, "_", "-"), err)
}

// Given reports that the flag of key was given, replacing the file's.
func (f *File) Given(key string) { delete(f.at, key) }

// RulePaths returns the exec rules files, relative ones against Dir.
func (f *File) RulePaths() []string {
	out := make([]string, len(f.Rules))
	for i, r := range f.Rules {
		if f.Dir != "" && !filepath.IsAbs(r) {
			r = filepath.Join(f.Dir, r)
		}
		out[i] = r
	}
	return out
}

// LoadFile reads the configuration file at path; a missing file is an
// empty configuration when optional.
func LoadFile(path string, optional bool) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if optional && errors.Is(err, os.ErrNotExist) {
			return &File{}, nil
		}
		return nil, err
	}
	return ParseFile(data, path)
}

// ParseFile reads a configuration file strictly: unknown keys, keys given
// twice and values of the wrong type are errors at their file:line:col.
func ParseFile(data []byte, path string) (*File, error) {
	f := &File{Path: path, Dir: filepath.Dir(path), at: map[string]filepos.Pos{}}
	// Bytes that are not UTF-8 are never space: such a file is not empty,
	// and ParseYAML reports them.
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	doc, err := filepos.ParseYAML(path, data)
	if err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return f, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, filepos.Errorf(path, root, "want a mapping of the keys of warden hook's flags")
	}
	// The keys whose value is a string, kept as it is.
	strs := map[string]*string{"approval": &f.Approval, "review": &f.Review, "auto_review_model": &f.AutoReviewModel, "server": &f.Server, "db": &f.DB}
	err = filepos.EachKey(path, root, "%s given twice", func(k, v *yaml.Node) (err error) {
		f.at[k.Value] = filepos.NodePos(path, v)
		switch dst, str := strs[k.Value]; {
		case str:
			*dst, err = scalar(path, v)
		case k.Value == "rules":
			f.Rules, err = list(path, v)
		case k.Value == "approvals_reviewer":
			f.ApprovalsReviewer, err = list(path, v)
			if err == nil {
				if _, cerr := approvalsreviewer.Check(f.ApprovalsReviewer); cerr != nil {
					err = filepos.Errorf(path, v, "approvals_reviewer: %v", cerr)
				}
			}
		case k.Value == "timeout":
			var s string
			if s, err = scalar(path, v); err == nil {
				if f.Timeout, err = time.ParseDuration(s); err != nil || f.Timeout <= 0 {
					err = filepos.Errorf(path, v, "timeout: want a positive duration such as 10m, got %q", s)
				}
			}
		case k.Value == "sandbox":
			if f.Sandbox, err = scalar(path, v); err == nil {
				if _, merr := sandboxmode.Parse(f.Sandbox); merr != nil {
					err = filepos.Errorf(path, v, "sandbox: %v", merr)
				}
			}
		default:
			return filepos.Errorf(path, k, "unknown key %q (keys: approval, review, rules, approvals_reviewer, auto_review_model, server, db, timeout, sandbox)", k.Value)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

func scalar(path string, n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", filepos.Errorf(path, n, "want a string")
	}
	return n.Value, nil
}

func list(path string, n *yaml.Node) ([]string, error) {
	if n.Kind == yaml.ScalarNode {
		s, err := scalar(path, n)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, filepos.Errorf(path, n, "want a list")
	}
	var out []string
	for _, e := range n.Content {
		s, err := scalar(path, e)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// String describes the file for errors.
func (f *File) String() string { return fmt.Sprintf("hook configuration %s", f.Path) }
