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

var catalog = func() *scenarios.Catalog {
	c, err := scenarios.Embedded()
	if err != nil {
		panic(fmt.Sprintf("the embedded catalog does not load:\n%v", err))
	}
	return c
}()

var _ = Describe("self-check: scriptedcore ↔ scriptedruntime", Label("self-check"), func() {
	for _, sc := range catalog.Scenarios {
		It(sc.ID, Label(sc.Labels...), func(ctx SpecContext) {
			seed := fmt.Sprint(GinkgoRandomSeed())
			ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			core, runtime := runner.SelfCheck(ctx2, sc, seed)
			Expect(core.Verdict).To(Equal(scenarios.Pass), "scripted Core:\n%s", core)
			Expect(runtime).NotTo(BeNil(), "the scripted Runtime never ran")
			if runner.OnlyTurnChecksNotApplicable(sc, runtime) {
				// Turn checks ask for Core's records; the scripted Core has none. Every wire step was
				// still played by both scripts, which is what the self-check proves.
				AddReportEntry("turn checks not applicable to the scripted Core", runtime.Failure.Message)
				return
			}
			Expect(runtime.Verdict).To(Equal(scenarios.Pass), "scripted Runtime:\n%s", runtime)
		})
	}
})
