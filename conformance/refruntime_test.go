package conformance_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/conformance"
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
			r := conformance.ReferenceRuntime(ctx2, sc, fmt.Sprint(GinkgoRandomSeed()))
			Expect(r.Verdict).To(Equal(scenarios.Pass), "%s", r)
		})
	}
})
