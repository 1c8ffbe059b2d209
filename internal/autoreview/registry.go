package autoreview

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/approvalsreviewer"
	"github.com/wardenhq/warden/model"
)

// ApproverName is the name of the reviewer agent in the approver registry,
// usable in policy files (SPEC P3).
const ApproverName = approvalsreviewer.AutoReview

func init() {
	approval.Register(ApproverName, factory)
}

// factory builds the "auto_review" approver of policy files: the reviewer
// agent alone (it approves or rejects, never escalates), on the model of
// parameter model (required: a model spec such as openai/NAME), with the
// policy text of parameter policy or else the one resolved from the managed
// and user configuration (SPEC G8), and parameters timeout (a duration such
// as "90s", or seconds) and attempts.
func factory(params map[string]any) (approval.Approver, error) {
	resolved, err := ResolvePolicy(DefaultPolicySources())
	if err != nil {
		return nil, fmt.Errorf("auto-review policy: %w", err)
	}
	r := &Reviewer{Policy: resolved.Text, Timeout: resolved.Timeout, MaxSteps: -1}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		v := params[k]
		switch k {
		case "model":
			spec, ok := v.(string)
			if !ok || strings.TrimSpace(spec) == "" {
				return nil, fmt.Errorf("parameter model: want a model spec such as openai/NAME, got %v", v)
			}
			mo, none := model.Options{}, 0
			mo.MaxRetries = &none // the reviewer retries within its timeout (SPEC G10)
			if r.Model, err = model.Open(spec, mo); err != nil {
				var mc *model.MissingConfigError
				if errors.As(err, &mc) { // --api-key does not reach a policy's model
					return nil, fmt.Errorf("parameter model: model %q: no %s: set %s (a policy's model takes its key from the environment)", spec, mc.What, mc.Env)
				}
				return nil, fmt.Errorf("parameter model: %w", err)
			}
			r.ModelName = spec
		case "policy":
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("parameter policy: want text, got %T", v)
			}
			if strings.TrimSpace(s) != "" {
				r.Policy = s
			}
		case "timeout":
			if n, ok := v.(int); ok {
				v = int64(n)
			}
			d, err := parseTimeout(v)
			if err != nil {
				return nil, fmt.Errorf("parameter timeout: %w", err)
			}
			r.Timeout = d
		case "attempts":
			n, ok := v.(int)
			if !ok || n < 1 {
				return nil, fmt.Errorf("parameter attempts: want a whole number ≥ 1, got %v", v)
			}
			r.Attempts = n
		default:
			return nil, fmt.Errorf("unknown parameter %q (parameters: model, policy, timeout, attempts)", k)
		}
	}
	if r.Model == nil {
		return nil, fmt.Errorf("parameter model is required (a model spec such as openai/NAME)")
	}
	return r, nil
}
