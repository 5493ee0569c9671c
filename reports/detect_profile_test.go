package reports_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// The profile of a run is the widest declaration its heartbeats show: the reference withholds a
// capability where a scenario excludes it, and that case, first in id order, must not narrow the
// run's profile (two shards of one run then disagreed and would not merge).
func TestDetectProfileTakesTheWidestDeclaration(t *testing.T) {
	narrow, wide := heartbeatFrame("preparation"), heartbeatFrame("preparation", "streaming")
	played := func(id, hb string) reports.Case {
		return reports.Case{Result: &scenarios.Result{Scenario: id, Played: scenarios.SideCore, Transcript: connect(hb)}}
	}
	got := reports.DetectProfile([]reports.Case{played("b/declares-all", wide), played("a/excludes-streaming", narrow)})
	want := reports.ProfileFromHeartbeat([]byte(wide))
	if diff := cmp.Diff(want.Supported, got.Supported); diff != "" {
		t.Fatalf("supported (-want +got):\n%s", diff)
	}
}
