package catalogsample

import (
	"testing"

	"github.com/wirecheck/wirecheck/scenarios"
)

// The sample of the embedded catalog shows every feature the catalog shows, is smaller than the
// catalog, and is the same on every call.
func TestCoverShowsEveryFeatureOfTheCatalog(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	sample := Cover(cat.Scenarios)
	shown := map[string]bool{}
	for _, sc := range sample {
		for _, f := range Features(sc) {
			shown[f] = true
		}
	}
	for _, sc := range cat.Scenarios {
		for _, f := range Features(sc) {
			if !shown[f] {
				t.Errorf("feature %s (of %s) is not shown by the sample", f, sc.ID)
			}
		}
	}
	if len(sample) >= len(cat.Scenarios)/2 {
		t.Errorf("the sample holds %d of %d scenarios: not a sample", len(sample), len(cat.Scenarios))
	}
	again := Cover(cat.Scenarios)
	for i := range sample {
		if i >= len(again) || again[i].ID != sample[i].ID {
			t.Fatalf("a second sample differs at %d", i)
		}
	}
}
