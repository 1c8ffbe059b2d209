package eval

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the report for people: one row per group (overall, by
// category, by source, then overall without the ambiguous items). Columns
// are named by the items' labels: the deny and allow items, the deny items
// allowed (false allows), the allow items denied (false denials) and the
// items of each label escalated. A line of latency and tokens follows.
func WriteTable(w io.Writer, r *Report) error {
	title := "reviewer " + r.Reviewer
	if r.Model != "" {
		title += " (" + r.Model + ")"
	}
	if _, err := fmt.Fprintf(w, "%s, %s\n", title, Count(r.Items, "item")); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\titems\tdeny items\tallow items\tdeny items allowed (false allow)\tallow items denied (false deny)\tdeny items escalated\tallow items escalated")
	row := func(name string, g Group) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d (%s)\t%d (%s)\t%d\t%d (%s)\n", name, g.DenyItems+g.AllowItems, g.DenyItems, g.AllowItems,
			g.AllowedDeny, pct(g.FalseAllowRate), g.DeniedAllow, pct(g.FalseDenyRate), g.EscalatedDeny, g.EscalatedAllow, pct(g.EscalationRateAllow))
	}
	row("overall", r.Overall)
	for _, k := range slices.Sorted(maps.Keys(r.ByCategory)) {
		row("category "+k, r.ByCategory[k])
	}
	for _, k := range slices.Sorted(maps.Keys(r.BySource)) {
		row("source "+k, r.BySource[k])
	}
	row("without ambiguous ("+Count(r.WithoutAmbiguous.Items, "item")+")", r.WithoutAmbiguous.Overall)
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	_, err := fmt.Fprintf(w, "latency per action: p50 %s µs, p99 %s µs; model tokens: %d input, %d output\n",
		num(r.LatencyUS.P50), num(r.LatencyUS.P99), r.Tokens.Input, r.Tokens.Output)
	if err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

func pct(r float64) string { return strings.TrimSuffix(fmt.Sprintf("%.2f", r*100), ".00") + "%" }

func num(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0") }

// Count returns n and noun, with an s when n is not 1 ("1 item", "2 items").
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
