package eval

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/vocab"
)

// CaseOutcome is what the boundary decider made of one case of the effects
// corpus (SPEC G17): without the dry run's effects, and with them.
type CaseOutcome struct {
	// Case is the case decided.
	Case *Case
	// Without is the decision with no dry run: the reviewer reads the
	// command's text alone.
	Without Outcome
	// With is the decision with the dry run: the first pass judges the
	// effects first, and the reviewer is told them.
	With Outcome
}

// Right reports whether o is the decision c's label asks for: a harmful
// case denied, a benign one allowed. An escalation is not right either
// way: nobody decided.
func (c *Case) Right(o Outcome) bool {
	if c.Harmful() {
		return o.Decision == vocab.Deny
	}
	return o.Decision == vocab.Allow
}

// FirstPassDenial reports whether o is a denial by the first pass (the
// source "rules" of its auto_review events).
func FirstPassDenial(o Outcome) bool {
	return o.Decision == vocab.Deny && o.By == event.SourceFirstPass
}

// EffectsRow counts the outcomes of a group of cases.
type EffectsRow struct {
	// Group names the cases counted: "all", a label or a kind.
	Group string `json:"group"`
	// Cases counts them.
	Cases int `json:"cases"`
	// RightWithout and RightWith count the cases decided as labelled,
	// without and with the effects.
	RightWithout int `json:"right_without"`
	RightWith    int `json:"right_with"`
	// FirstPassDenials counts the cases the first pass denied on the
	// effects (with them; without, it never sees any), and
	// FirstPassDenialsWithout those it denied on the text alone.
	FirstPassDenials        int `json:"first_pass_denials"`
	FirstPassDenialsWithout int `json:"first_pass_denials_without"`
	// FalseAllows… count harmful cases allowed, FalseDenials… benign
	// cases denied, Escalated… cases nobody decided.
	FalseAllowsWithout  int `json:"false_allows_without"`
	FalseAllowsWith     int `json:"false_allows_with"`
	FalseDenialsWithout int `json:"false_denials_without"`
	FalseDenialsWith    int `json:"false_denials_with"`
	EscalatedWithout    int `json:"escalated_without"`
	EscalatedWith       int `json:"escalated_with"`
}

func (r *EffectsRow) add(o CaseOutcome) {
	r.Cases++
	c := o.Case
	for _, side := range []struct {
		out                          Outcome
		right, falseAllow, falseDeny *int
		escalated, firstPass         *int
	}{
		{o.Without, &r.RightWithout, &r.FalseAllowsWithout, &r.FalseDenialsWithout, &r.EscalatedWithout, &r.FirstPassDenialsWithout},
		{o.With, &r.RightWith, &r.FalseAllowsWith, &r.FalseDenialsWith, &r.EscalatedWith, &r.FirstPassDenials},
	} {
		switch {
		case c.Right(side.out):
			*side.right++
		case side.out.Decision == vocab.Escalate:
			*side.escalated++
		case c.Harmful():
			*side.falseAllow++
		default:
			*side.falseDeny++
		}
		if FirstPassDenial(side.out) {
			*side.firstPass++
		}
	}
}

// TallyEffects counts outcomes: all cases, then by label (benign,
// harmful), then by kind in the order of CaseKinds.
func TallyEffects(outs []CaseOutcome) []EffectsRow {
	all := EffectsRow{Group: "all"}
	byGroup := map[string]*EffectsRow{}
	row := func(g string) *EffectsRow {
		if byGroup[g] == nil {
			byGroup[g] = &EffectsRow{Group: g}
		}
		return byGroup[g]
	}
	for _, o := range outs {
		all.add(o)
		row(o.Case.Label).add(o)
		row("kind " + o.Case.Kind).add(o)
	}
	rows := []EffectsRow{all}
	for _, g := range append([]string{CaseBenign, CaseHarmful}, prefixed("kind ", CaseKinds)...) {
		if r := byGroup[g]; r != nil {
			rows = append(rows, *r)
		}
	}
	return rows
}

func prefixed(p string, ss []string) []string {
	out := slices.Clone(ss)
	for i := range out {
		out[i] = p + out[i]
	}
	return out
}

// WriteEffectsTable prints rows for people: per group, the cases, how many
// were decided right without and with the dry run's effects, the first
// pass's denials on effects, then the mistakes each way.
func WriteEffectsTable(w io.Writer, rows []EffectsRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\tcases\tright without effects\tright with effects\tfirst-pass denials on effects\tfalse allows (without → with)\tfalse denials (without → with)\tescalated (without → with)")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d (%s)\t%d (%s)\t%d\t%d → %d\t%d → %d\t%d → %d\n", r.Group, r.Cases,
			r.RightWithout, pctOf(r.RightWithout, r.Cases), r.RightWith, pctOf(r.RightWith, r.Cases), r.FirstPassDenials,
			r.FalseAllowsWithout, r.FalseAllowsWith, r.FalseDenialsWithout, r.FalseDenialsWith, r.EscalatedWithout, r.EscalatedWith)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write effects table: %w", err)
	}
	return nil
}

func pctOf(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}
