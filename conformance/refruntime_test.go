package conformance_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

var _ = Describe("runtime: reference", Label("runtime"), func() {
	for _, sc := range catalog.Scenarios {
		if !sc.Tests.Covers(scenarios.SideRuntime) {
			continue
		}
		It(sc.ID, Label(sc.Labels...), func(ctx SpecContext) {
			ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			r := runner.RunRuntime(ctx2, []*scenarios.Scenario{sc}, runner.ReferenceRuntime{}, runner.Options{Seed: fmt.Sprint(GinkgoRandomSeed())})[0]
			Expect(r.Verdict).To(Equal(scenarios.Pass), "%s", r)
		})
	}
})
