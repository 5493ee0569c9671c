package conformance_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/scenarios"
)

// One Describe per pairing, one spec per scenario it covers, labelled with both. Each spec only
// waits for its result from the batch BeforeSuite started.
var _ = func() bool {
	for _, p := range pairings {
		Describe(p.Name, Label(p.Labels...), func() {
			for _, sc := range catalog.Scenarios {
				if !p.Covers(sc) {
					continue
				}
				It(sc.ID, Label(sc.Labels...), func(ctx SpecContext) {
					if why := p.Skip(sc); why != "" {
						Skip(sc.ID + ": " + why)
					}
					r := batch.Result(ctx, key(p.Name, sc.ID))
					Expect(r).NotTo(BeNil(), "the batch did not play %s", sc.ID)
					Expect(r.Verdict).To(Equal(scenarios.Pass), "%s", r)
				})
			}
		})
	}
	return true
}()
