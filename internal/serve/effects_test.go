package serve

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/queue"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/tool"
)

// The attack: a command that a dry run observed creating a file whose name
// is markup. The effect checked: the panel card of the pending request
// shows the dry run's effects under their own label, the name as text
// (escaped, never markup), and the stored context carries the summary for
// the API.
func TestG17_PanelCardShowsTheEffects(t *testing.T) {
	env := newPanelEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep := effect.Report{
		Creates: []string{"/root/<script>alert(1)</script>"},
		Network: []effect.Dest{{Op: "lookup", Name: "exfil.example"}},
	}
	summary := rep.Summary([]string{"/srv/project"}, 0)
	go func() {
		a := queue.Approver(env.st, "run-e", []approval.Decision{approval.Approve, approval.Reject}, 0)
		a.Approve(ctx, &approval.Request{ //nolint:errcheck // cancelled at the end
			Agent: "main", Message: "Installing.",
			Call:    tool.NewCall("c1", "bash", `{"cmd":"./install.sh"}`),
			History: []chat.Message{{Role: chat.User, Content: "Install it"}},
			Boundary: &boundary.Request{Permission: boundary.Exec, Command: "./install.sh", Escalated: true, Reason: "escalated",
				Effects: &effect.Observed{Report: &rep, Summary: summary}},
		})
	}()
	pend, b := env.awaitPending(ctx, t)
	_, page := b.do("GET", "/", nil)
	got := section(page, "effects seen in a dry run")
	if !strings.Contains(got, "would look up exfil.example") || !strings.Contains(got, "/root/<script>alert(1)</script>") {
		t.Errorf("the card's effects = %q", got)
	}
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("a file name from the dry run reached the page as markup")
	}
	cs, err := env.st.RequestContexts(ctx, []string{pend[0].ID})
	if err != nil || cs[pend[0].ID].Effects != summary {
		t.Errorf("stored context %+v (%v)", cs[pend[0].ID], err)
	}
}

// awaitPending waits for a request to reach the queue of env and returns
// the pending requests and a browser logged in to the panel.
func (env *panelEnv) awaitPending(ctx context.Context, t *testing.T) ([]store.Request, *browser) {
	t.Helper()
	var pend []store.Request
	for deadline := time.Now().Add(10 * time.Second); len(pend) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the request never reached the queue")
		}
		time.Sleep(10 * time.Millisecond)
		pend, _ = env.st.Requests(ctx, "pending")
	}
	b := newBrowser(t, env.url)
	b.login()
	return pend, b
}
