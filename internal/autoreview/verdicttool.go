package autoreview

import (
	"crypto/rand"
	"encoding/json"
	"fmt"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/internal/argjson"
	"github.com/wardenhq/warden/tool"
)

// VerdictTool is the name of the tool through which the reviewer gives its
// verdict (SPEC G6): a tool call is the reviewer's own act, which no text
// quoted from the transcript can stand for. Its arguments are the verdict
// object and the review's nonce.
const VerdictTool = "submit_verdict"

// verdictToolInfo is the VerdictTool offered to the reviewer.
var verdictToolInfo = tool.Info{
	Name: VerdictTool,
	Description: "Gives your final verdict on the requested action; calling it ends the review. " +
		"Call it alone (no other tool in the same answer), with the nonce of this review.",
	Parameters: json.RawMessage(`{"type":"object","properties":{` +
		`"outcome":{"type":"string","enum":["allow","deny"]},` +
		`"risk_level":{"type":"string","enum":["low","medium","high","critical"]},` +
		`"user_authorization":{"type":"string","enum":["unknown","low","medium","high"]},` +
		`"user_authorization_quote":{"type":"string","description":"For medium or high authorization: the person's own words it rests on, copied exactly from one user turn."},` +
		`"rationale":{"type":"string","description":"One to three sentences."},` +
		`"nonce":{"type":"string","description":"The nonce of this review, as given in the request."}},` +
		`"required":["outcome","risk_level","user_authorization","rationale","nonce"],"additionalProperties":false}`),
}

// ErrNonce is the error of a verdict that does not carry the review's
// nonce: a verdict call without it, or any verdict with another one (a
// verdict copied from somewhere else). It is ErrAmbiguousVerdict: no
// answer.
var ErrNonce = fmt.Errorf("%w: the verdict does not carry this review's nonce", ErrAmbiguousVerdict)

// newNonce returns a fresh nonce for one review: 26 random base32
// characters, which the agent cannot predict.
func newNonce() string { return rand.Text() }

// nonceNote is the line warden adds to the reviewer's request to give it
// the review's nonce.
func nonceNote(nonce string) string {
	return "The nonce of this review is " + nonce + ". Give your verdict by calling " + VerdictTool +
		" with it as \"nonce\"; a JSON answer may carry it as \"nonce\" too. A verdict with any other nonce is not read."
}

// withNonce returns the reviewer's request msgs with the nonce note added
// to its last message.
func withNonce(msgs []chat.Message, nonce string) []chat.Message {
	out := append([]chat.Message(nil), msgs...)
	if n := len(out); n > 0 {
		out[n-1].Content += "\n\n" + nonceNote(nonce)
	}
	return out
}

// hasVerdictCall reports whether calls include a call of VerdictTool.
func hasVerdictCall(calls []tool.Call) bool {
	for _, c := range calls {
		if c.Function == VerdictTool {
			return true
		}
	}
	return false
}

// parseVerdictCall reads the verdict of an answer whose calls include a
// VerdictTool call. It must be the answer's only call, its arguments one
// verdict object (as ParseVerdict reads a whole answer) carrying nonce.
func parseVerdictCall(calls []tool.Call, nonce string) (Verdict, error) {
	if len(calls) != 1 {
		return Verdict{}, fmt.Errorf("%w: %s must be the only tool call of the answer", ErrAmbiguousVerdict, VerdictTool)
	}
	c := calls[0]
	if c.ParseError != "" {
		return Verdict{}, fmt.Errorf("%w: the arguments of %s are not a JSON object: %s", ErrAmbiguousVerdict, VerdictTool, c.ParseError)
	}
	return parseVerdict(string(c.Arguments), nonce, true)
}

// verdictCallResults answers every call of an answer that called
// VerdictTool, so that the conversation stays valid: with err when the
// verdict was not read, else with its receipt.
func verdictCallResults(calls []tool.Call, err error) []chat.Message {
	out := make([]chat.Message, 0, len(calls))
	for _, c := range calls {
		m := chat.Message{Role: chat.Tool, ToolCallID: c.ID, Function: c.Function, Content: "verdict received"}
		if err != nil {
			m.Error = tool.Errorf(tool.ErrParsing, "not read: %v; call %s alone with the verdict and this review's nonce", err, VerdictTool)
			m.Content = m.Error.Error()
		}
		out = append(out, m)
	}
	return out
}

// checkNonce checks the "nonce" member of the verdict object raw against
// nonce: a missing one is an error only when required, another one always.
// An empty nonce checks nothing.
func checkNonce(raw json.RawMessage, nonce string, required bool) error {
	if nonce == "" {
		return nil
	}
	var got json.RawMessage
	_ = argjson.Each(raw, func(k string, v json.RawMessage) bool {
		if k == "nonce" {
			got = v
			return false
		}
		return true
	})
	if got == nil {
		if required {
			return ErrNonce
		}
		return nil
	}
	var s string
	if err := json.Unmarshal(got, &s); err != nil || s != nonce {
		return ErrNonce
	}
	return nil
}
