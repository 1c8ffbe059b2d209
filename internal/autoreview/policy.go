package autoreview

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/wardenhq/warden/internal/wardenhome"
)

// PolicySources are the configuration files a policy is resolved from
// (wardenhome.ConfigSources): the administrator's file, whose
// [auto_review] table may set policy, extra_policy, floor and timeout, and
// the user's, which may set policy, extra_policy and timeout.
type PolicySources = wardenhome.ConfigSources

// DefaultPolicySources returns the managed file named by
// WARDEN_MANAGED_CONFIG (default /etc/warden/managed.toml) and config.toml in
// WARDEN_HOME (default ~/.warden). When the home directory cannot be found,
// UserConfigPath is empty.
func DefaultPolicySources() PolicySources { return wardenhome.DefaultConfigSources() }

// Where a part of the policy came from.
const (
	LevelManaged = "managed"
	LevelUser    = "user"
	LevelBundled = "bundled"
)

// PolicyPart is one piece of a resolved policy.
type PolicyPart struct {
	// Level is LevelManaged, LevelUser or LevelBundled.
	Level string `json:"level"`
	// Key is the configuration key: "policy", "extra_policy" or "floor".
	Key string `json:"key"`
	// Path is the file it was read from; empty for the bundled default.
	Path string `json:"path,omitempty"`
	// Text is the part's text, trimmed.
	Text string `json:"text"`
}

// Heading returns the heading the part has in the resolved text.
func (p PolicyPart) Heading() string {
	switch {
	case p.Key == "floor":
		return "Organisation floor (managed configuration; always applies, and nothing above can relax it)"
	case p.Key == "extra_policy" && p.Level == LevelManaged:
		return "Additional rules (managed configuration)"
	case p.Key == "extra_policy":
		return "Additional rules (user configuration; they add to the rules above and cannot relax rules of the managed configuration)"
	case p.Level == LevelManaged:
		return "Policy (managed configuration)"
	case p.Level == LevelUser:
		return "Policy (user configuration)"
	}
	return "Policy (bundled default)"
}

// Resolved is the policy in force and where each part came from.
type Resolved struct {
	// Text is the policy text for the template's slot: each part under its
	// heading, in order.
	Text string `json:"text"`
	// Parts are, in order: the policy (first non-blank of managed, user,
	// bundled), the managed extra_policy, the user extra_policy, the
	// managed floor. Blank parts are left out.
	Parts []PolicyPart `json:"parts"`
	// Timeout is the configured review timeout (managed, else user); zero
	// when neither sets one.
	Timeout time.Duration `json:"timeout,omitempty"`
	// TimeoutFrom is the file Timeout was read from.
	TimeoutFrom string `json:"timeout_from,omitempty"`
	// MaxSteps and MaxToolCalls are the configured budget of a review
	// (Reviewer.MaxSteps, Reviewer.MaxToolCalls; managed, else user);
	// zero when neither file sets them.
	MaxSteps     int `json:"max_steps,omitempty"`
	MaxToolCalls int `json:"max_tool_calls,omitempty"`
	// DryRun is [auto_review] dry_run (managed, else user): whether a
	// boundary request the first pass passes on is dry-run first (SPEC
	// G17). Nil when neither file sets it: on where the kernel supports it.
	DryRun *bool `json:"dry_run,omitempty"`
	// Files are the files that were read; files that do not exist are not
	// listed.
	Files []string `json:"files"`
}

// Describe renders the resolution for people (`warden auto-review policy`):
// where each part came from, then the text.
func (r Resolved) Describe() string {
	var b strings.Builder
	b.WriteString("Sources:\n")
	for _, p := range r.Parts {
		from := p.Path
		if from == "" {
			from = "built into warden"
		}
		fmt.Fprintf(&b, "  %-12s %-8s %s\n", p.Key, p.Level, from)
	}
	if r.Timeout > 0 {
		fmt.Fprintf(&b, "  %-12s %-8s %s (%s)\n", "timeout", "", r.TimeoutFrom, r.Timeout)
	}
	if r.MaxSteps > 0 || r.MaxToolCalls > 0 {
		fmt.Fprintf(&b, "  %-12s %-8s steps %d, tool calls %d (0: the default)\n", "budget", "", r.MaxSteps, r.MaxToolCalls)
	}
	if r.DryRun != nil {
		fmt.Fprintf(&b, "  %-12s %-8s %t\n", "dry_run", "", *r.DryRun)
	}
	b.WriteString("\n")
	b.WriteString(r.Text)
	b.WriteString("\n")
	return b.String()
}

// configFile is the part of a configuration file this package reads.
type configFile struct {
	AutoReview *autoReviewTable `toml:"auto_review"`
}

// autoReviewTable is the [auto_review] table.
type autoReviewTable struct {
	Policy      tomlText `toml:"policy"`
	ExtraPolicy tomlText `toml:"extra_policy"`
	Floor       tomlText `toml:"floor"`
	// Timeout is a duration string ("90s", "2m") or a number of seconds.
	Timeout tomlDuration `toml:"timeout"`
	// MaxSteps and MaxToolCalls set the budget of a review (SPEC G4).
	MaxSteps     *int `toml:"max_steps"`
	MaxToolCalls *int `toml:"max_tool_calls"`
	// DryRun turns the dry run of what the first pass passes on (SPEC
	// G17) on or off.
	DryRun *bool `toml:"dry_run"`
}

// tomlText is a string value. Decoding it through UnmarshalTOML makes a
// value of the wrong type a toml.ParseError, which has a position.
type tomlText struct {
	set  bool
	text string
}

// UnmarshalTOML implements toml.Unmarshaler.
func (t *tomlText) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("want a string, not %s", tomlType(v))
	}
	t.set, t.text = true, s
	return nil
}

// tomlDuration is a duration string or a number of seconds.
type tomlDuration struct {
	d time.Duration
}

// UnmarshalTOML implements toml.Unmarshaler.
func (t *tomlDuration) UnmarshalTOML(v any) error {
	d, err := parseTimeout(v)
	if err != nil {
		return err
	}
	t.d = d
	return nil
}

// tomlType names the TOML type of a decoded value.
func tomlType(v any) string {
	switch v.(type) {
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date-time"
	}
	return fmt.Sprintf("%T", v)
}

// ConfigError is an error at a position of a configuration file.
type ConfigError struct {
	// Path is the file.
	Path string
	// Line and Col locate the error, counting from 1.
	Line, Col int
	// Message says what is wrong.
	Message string
	// Err is the parser's error.
	Err error
}

// Error returns "path:line:col: message".
func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Message)
}

// Unwrap returns the underlying error.
func (e *ConfigError) Unwrap() error { return e.Err }

// loaded is what one file contributed.
type loaded struct {
	path                 string
	policy, extra, floor string
	timeout              time.Duration
	maxSteps, maxCalls   int
	dryRun               *bool
	exists               bool
}

// ResolvePolicy resolves the reviewer's policy (SPEC G8). The policy is the
// first non-blank of the managed file's [auto_review].policy, the user
// file's, and DefaultPolicy. Then come, each appended under its own heading:
// the managed extra_policy, the user extra_policy, and the managed floor,
// which is always included, even when the user sets a policy of their own.
// The user file may not set floor.
//
// Files that do not exist are skipped. A file that cannot be read, is not
// valid TOML (reported as file:line:col), has a key of the wrong type or an
// unknown key in [auto_review] is an error: a broken managed file never
// silently drops the organisation's rules.
func ResolvePolicy(src PolicySources) (Resolved, error) {
	var res Resolved
	managed, err := loadConfig(src.ManagedPath, true)
	if err != nil {
		return res, err
	}
	user, err := loadConfig(src.UserConfigPath, false)
	if err != nil {
		return res, err
	}
	for _, l := range []loaded{managed, user} {
		if l.exists {
			res.Files = append(res.Files, l.path)
		}
	}
	switch {
	case managed.policy != "":
		res.Parts = append(res.Parts, PolicyPart{Level: LevelManaged, Key: "policy", Path: managed.path, Text: managed.policy})
	case user.policy != "":
		res.Parts = append(res.Parts, PolicyPart{Level: LevelUser, Key: "policy", Path: user.path, Text: user.policy})
	default:
		res.Parts = append(res.Parts, PolicyPart{Level: LevelBundled, Key: "policy", Text: strings.TrimSpace(DefaultPolicy)})
	}
	if managed.extra != "" {
		res.Parts = append(res.Parts, PolicyPart{Level: LevelManaged, Key: "extra_policy", Path: managed.path, Text: managed.extra})
	}
	if user.extra != "" {
		res.Parts = append(res.Parts, PolicyPart{Level: LevelUser, Key: "extra_policy", Path: user.path, Text: user.extra})
	}
	if managed.floor != "" {
		res.Parts = append(res.Parts, PolicyPart{Level: LevelManaged, Key: "floor", Path: managed.path, Text: managed.floor})
	}
	var b strings.Builder
	for i, p := range res.Parts {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("## " + p.Heading() + "\n\n" + p.Text)
	}
	res.Text = b.String()
	switch {
	case managed.timeout > 0:
		res.Timeout, res.TimeoutFrom = managed.timeout, managed.path
	case user.timeout > 0:
		res.Timeout, res.TimeoutFrom = user.timeout, user.path
	}
	res.MaxSteps = cmp.Or(managed.maxSteps, user.maxSteps)
	res.MaxToolCalls = cmp.Or(managed.maxCalls, user.maxCalls)
	res.DryRun = cmp.Or(managed.dryRun, user.dryRun)
	return res, nil
}

// knownTableKeys are the keys of [auto_review], for error messages.
var knownTableKeys = []string{"dry_run", "extra_policy", "floor", "max_steps", "max_tool_calls", "policy", "timeout"}

// loadConfig reads the [auto_review] table of the file at path.
func loadConfig(path string, managed bool) (loaded, error) {
	l := loaded{path: path}
	if path == "" {
		return l, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("auto-review policy: %w", err)
	}
	l.exists = true
	var cf configFile
	md, err := toml.Decode(string(data), &cf)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) && pe.Position.Line > 0 {
			msg := pe.Message
			if pe.LastKey != "" && !strings.Contains(msg, pe.LastKey) {
				msg = pe.LastKey + ": " + msg
			}
			return l, &ConfigError{Path: path, Line: pe.Position.Line, Col: max(pe.Position.Col, 1), Message: msg, Err: err}
		}
		return l, fmt.Errorf("%s: %w", path, err)
	}
	var unknown []string
	for _, k := range md.Undecoded() {
		if len(k) >= 2 && k[0] == "auto_review" {
			unknown = append(unknown, k[1])
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return l, fmt.Errorf("%s: unknown key auto_review.%s (known: %s)", path, unknown[0], strings.Join(knownTableKeys, ", "))
	}
	t := cf.AutoReview
	if t == nil {
		return l, nil
	}
	l.policy = strings.TrimSpace(t.Policy.text)
	l.extra = strings.TrimSpace(t.ExtraPolicy.text)
	if t.Floor.set {
		if !managed {
			return l, fmt.Errorf("%s: auto_review.floor is only read from the managed configuration (%s)", path, wardenhome.DefaultManagedConfig)
		}
		l.floor = strings.TrimSpace(t.Floor.text)
	}
	l.timeout = t.Timeout.d
	l.dryRun = t.DryRun
	for _, b := range []struct {
		key string
		v   *int
		to  *int
	}{{"max_steps", t.MaxSteps, &l.maxSteps}, {"max_tool_calls", t.MaxToolCalls, &l.maxCalls}} {
		if b.v == nil {
			continue
		}
		if *b.v <= 0 || *b.v > 1000 {
			return l, fmt.Errorf("%s: auto_review.%s is %d; want a number from 1 to 1000", path, b.key, *b.v)
		}
		*b.to = *b.v
	}
	return l, nil
}

// parseTimeout reads a duration string or a number of seconds.
func parseTimeout(v any) (time.Duration, error) {
	var d time.Duration
	switch x := v.(type) {
	case string:
		var err error
		if d, err = time.ParseDuration(strings.TrimSpace(x)); err != nil {
			return 0, fmt.Errorf("want a duration such as \"90s\": %w", err)
		}
	case int64:
		d = time.Duration(x) * time.Second
	case float64:
		d = time.Duration(x * float64(time.Second))
	default:
		return 0, fmt.Errorf("want a duration such as \"90s\" or a number of seconds, not %s", tomlType(v))
	}
	if d <= 0 {
		return 0, fmt.Errorf("%s is not positive", d)
	}
	return d, nil
}
