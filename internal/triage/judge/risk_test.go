package judge

import (
	"testing"

	"github.com/wardenhq/warden/action"
)

// TestG6_RiskRanksAreActionRisks: the first pass ranks risk as
// action.Risk does — one ranking of risk in warden.
func TestG6_RiskRanksAreActionRisks(t *testing.T) {
	for rank, want := range map[int]action.Risk{Low: action.RiskLow, Medium: action.RiskMedium, High: action.RiskHigh, Critical: action.RiskCritical} {
		if got := action.RiskAt(rank); got != want || want.Level() != rank {
			t.Errorf("rank %d: RiskAt %q, %q.Level() %d", rank, got, want, want.Level())
		}
	}
}
