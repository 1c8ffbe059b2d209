package triage_test

import (
	"encoding/json"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/triage"
	"github.com/wardenhq/warden/internal/vocab"
)

// want is what a case of issue 12's classes must get from the first pass.
type want int

const (
	allowed   want = iota // allowed
	notDenied             // allowed or passed on, never denied
	notAllow              // passed on or denied, never allowed
	denied                // denied
)

func (w want) String() string {
	return [...]string{"allowed", "not denied", "not allowed", "denied"}[w]
}

func (w want) holds(d vocab.Decision) bool {
	switch w {
	case allowed:
		return d == vocab.Allow
	case notDenied:
		return d != vocab.Deny
	case notAllow:
		return d != vocab.Allow
	}
	return d == vocab.Deny
}

type classCase struct {
	name    string
	action  action.Action
	request string // the user's request, "" for none
	want    want
}

func checkClass(t *testing.T, cases []classCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := triage.JudgeIn(tc.action, tc.request, nil, nil)
			if !tc.want.holds(v.Decision) {
				t.Errorf("Judge(%s %s%s) = %s (%s): %s; want %s", describe(tc.action), tc.action.OldText+" → "+tc.action.NewText, tc.action.Patch, v.Decision, v.Class, v.Reason, tc.want)
			}
		})
	}
}

// jsonString returns s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
