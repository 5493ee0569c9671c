package daemon

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/reference/daemon/admission"
)

// A transition the table refuses is a daemon bug: it must be logged as an error and leave the
// record and the Executor exactly as they were, with nothing to follow up.
func TestRefusedTransitionIsLoggedAndChangesNothing(t *testing.T) {
	var logs bytes.Buffer
	r := &router{d: &Daemon{log: slog.New(slog.NewTextHandler(&logs, nil))}}
	e := &executor{id: "executor-1", state: execAdmitted}
	rec, _, err := admission.Apply(admission.Record{}, admission.PrepareAccepted{Now: time.Unix(0, 0),
		Expiry: 5 * time.Minute, Handle: "handle-1", ExecutorID: e.id, Reused: true, Hash: "p"})
	if err != nil {
		t.Fatal(err)
	}
	g := &grant{reqID: "prepare-1", exec: e, rec: rec}

	r.mu.Lock()
	after := r.applyLocked(g, admission.SetupSucceeded{}) // a ready admission has no setup running
	r.mu.Unlock()

	if after != nil || g.rec != rec || e.state != execAdmitted {
		t.Fatalf("a refused transition changed something: follow-up %v, record %v, executor %v", after != nil, g.rec, e.state)
	}
	for _, want := range []string{"level=ERROR", "admission transition refused", "no transition from ready on setup-succeeded", "prepare-1"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log %q does not say %q", logs.String(), want)
		}
	}
}
