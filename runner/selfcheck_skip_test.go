package runner_test

import (
	"testing"

	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// A scenario for a Core whose faults multiply a frame towards Core (a burst of 500 rejections) is
// left out of the self-check: the scripted Core reads the frame once, so the self-check passed
// only when the scripted Runtime's frame beat the scripted Core's arming of the faults, and failed
// (want ready, got the 2nd of 501 rejections) whenever the scripts ran the other way round, about
// one play in ten. Scenarios whose duplicates a step reads as copies are still played.
func TestSelfCheckLeavesOutBurstsOnlyACoreTakesIn(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	p := runner.SelfCheckPairing()
	burst, ok := cat.Get("core/preparation/subscription-overflow-closes-it")
	if !ok {
		t.Fatal("the burst scenario is missing")
	}
	if p.Skip(burst) == "" {
		t.Errorf("the self-check plays %s, whose 500 duplicates the scripted Core cannot read", burst.ID)
	}
	played := 0
	for _, sc := range cat.Scenarios {
		if sc.ID != burst.ID && sc.HasFaults() && p.Skip(sc) == "" {
			played++
		}
	}
	if played == 0 {
		t.Error("the self-check leaves out every scenario with faults; only the burst should go")
	}
}
