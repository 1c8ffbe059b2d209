package judge

import (
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/triage/argument"
	"github.com/wardenhq/warden/internal/vocab"
)

// injected reports, as weak evidence from the conversation, that an
// action triage would allow repeats instructions found only in tool
// output (untrusted: a README, an issue, a web page may carry prompt
// injection). It never allows anything; it only passes the action on.
func injected(a *action.Action, request string, transcript []vocab.Turn) string {
	if len(transcript) == 0 {
		return ""
	}
	var needle string
	switch a.Kind {
	case action.Shell:
		if s, ok := shellScript(a.Command); ok {
			needle = s
		} else {
			needle = strings.Join(a.Command, " ")
		}
	default:
		return ""
	}
	needle = strings.Join(strings.Fields(needle), " ")
	if len(needle) < 8 {
		return ""
	}
	fromUser := strings.Contains(strings.Join(strings.Fields(request), " "), needle)
	inTool := false
	for _, t := range transcript {
		norm := strings.Join(strings.Fields(t.Content), " ")
		if !strings.Contains(norm, needle) {
			continue
		}
		switch t.Role {
		case "user":
			fromUser = true
		case "tool":
			inTool = true
		}
	}
	if inTool && !fromUser {
		return "the command repeats text found in tool output, which is untrusted; the reviewer should check that the user asked for it"
	}
	return ""
}

// askedWords returns the words of the user's request and of the user's
// turns of transcript, lower case: the words of tool and agent turns are
// not the user's (a tool's output can say anything).
func askedWords(request string, transcript []vocab.Turn) map[string]bool {
	var m map[string]bool // nil until a word is found: most judgements have no conversation
	add := func(text string) {
		for _, w := range argument.Words(text) {
			if len(w) > 2 {
				if m == nil {
					m = map[string]bool{}
				}
				m[w] = true
				m[strings.TrimSuffix(w, "s")] = true
			}
		}
	}
	add(request)
	for _, t := range transcript {
		if t.Role == "user" {
			add(t.Content)
		}
	}
	return m
}
