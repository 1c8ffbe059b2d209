package autoreview

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/internal/vocab"
)

// The shortest quote that counts as evidence of an authorization (SPEC
// G6): a quote must hold at least MinQuoteWords words and MinQuoteChars
// characters other than spaces, so that "ok" or "yes" found anywhere in the
// person's words proves nothing.
const (
	MinQuoteChars = 8
	MinQuoteWords = 2
)

// WardenNotePrefix starts a user message that warden wrote into the agent's
// conversation (the person's override note, gate.PersonNotePrefix). Such a
// message embeds the action the agent wrote, so it is not one of the
// person's requests and a quote from it is no evidence.
const WardenNotePrefix = "[warden:"

// PersonRequests returns the person's requests in history: the text of
// every user turn, leaving out messages warden wrote (WardenNotePrefix).
// Assistant text, tool calls and tool output are the agent's and never
// count.
func PersonRequests(history []chat.Message) []string {
	var out []string
	for _, m := range history {
		if m.Role == chat.User && !strings.HasPrefix(strings.TrimSpace(m.Content), WardenNotePrefix) {
			out = append(out, m.Content)
		}
	}
	return out
}

// RequireEvidence checks the quote an authorization of medium or high rests
// on (SPEC G6): it must be non-trivial (MinQuoteChars, MinQuoteWords) and
// appear in one of the person's requests (see PersonRequests), compared
// without regard to case, compatibility forms, invisible format characters
// or the amount of white space; the "| " prefixes of the condensed
// transcript and surrounding quotation marks or ellipses in the quote are
// set aside. Otherwise the authorization is lowered to unknown,
// StatedAuthorization keeps the reviewer's rating, AuthorizationLowered
// says why, and the outcome rule is applied again — so a high risk then
// denies. An authorization of unknown or low needs no evidence.
func (v *Verdict) RequireEvidence(requests []string) {
	if v.UserAuthorization.Level() < action.AuthMedium.Level() {
		return
	}
	reason := quoteProblem(v.UserAuthorizationQuote, requests)
	if reason == "" {
		return
	}
	v.StatedAuthorization = v.UserAuthorization
	v.UserAuthorization = action.AuthUnknown
	v.AuthorizationLowered = reason
	if v.Outcome == vocab.Allow {
		if rule, _ := RuleOutcome(v.RiskLevel, v.UserAuthorization, true); rule == vocab.Deny {
			v.Outcome, v.Overruled = vocab.Deny, true
		}
	}
}

// quoteProblem returns why quote is no evidence in requests, or "".
func quoteProblem(quote string, requests []string) string {
	q := foldQuote(quote)
	if q == "" {
		return "no user_authorization_quote quotes the person's words"
	}
	if len(strings.Fields(q)) < MinQuoteWords || len([]rune(strings.ReplaceAll(q, " ", ""))) < MinQuoteChars {
		return "the user_authorization_quote is too short to show an authorization"
	}
	for _, r := range requests {
		if strings.Contains(foldText(r), q) {
			return ""
		}
	}
	return "the user_authorization_quote is not in the person's requests"
}

// foldQuote folds a quote for matching (foldText), first removing the
// condensed transcript's "| " line prefixes and the quotation marks and
// ellipses a model may put around a quote.
func foldQuote(quote string) string {
	q := quote
	for {
		lines := strings.Split(q, "\n")
		for i, l := range lines {
			l = strings.TrimLeft(l, " \t")
			lines[i] = strings.TrimPrefix(l, "|")
		}
		t := strings.Trim(strings.Join(lines, "\n"), " \t\n\"'`“”‘’«»")
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, "..."), "..."))
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, "…"), "…"))
		if t == q {
			break
		}
		q = t
	}
	return foldText(q)
}

// foldText returns s in the form quotes are matched in: compatibility
// normalised (NFKC), lower case, with format characters (zero-width,
// bidirectional controls) and other control characters removed and every
// run of white space one space, trimmed.
func foldText(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.Is(unicode.Cf, r), unicode.IsControl(r):
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
