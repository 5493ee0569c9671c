package fault_test

import (
	"slices"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/clock"
)

// TestMain checks, after every test (plain and Ginkgo), that nothing is left running but Ginkgo's
// own interrupt handler.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/onsi/ginkgo/v2/internal/interrupt_handler.(*InterruptHandler).registerForInterrupts.func2"))
}

func TestRelay(t *testing.T) {
	RegisterFailHandler(Fail)
	// A bound, not a wait: Eventually returns as soon as what it waits for holds; a load average of 30
	// on two CPUs must not reach it.
	SetDefaultEventuallyTimeout(time.Minute)
	// Which transparent plays BeforeSuite plays is decided by Ginkgo's own filters.
	for _, sr := range PreviewSpecs("fault relay").SpecReports {
		if sr.State == types.SpecStatePassed {
			transparentSelected[transparentKey(append(slices.Clone(sr.ContainerHierarchyTexts), sr.LeafNodeText)...)] = true
		}
	}
	RunSpecs(t, "fault relay")
	if n := clock.Overheld(); n > 0 {
		t.Errorf("%d advances gave up waiting for a clock Hold (a holder that never released)", n)
	}
}

// Each spec must leave no goroutine behind: relays, sessions, timers and peers all stop.
var baseline goleak.Option

var _ = BeforeEach(func() { baseline = goleak.IgnoreCurrent() })

var _ = AfterEach(func() {
	Eventually(func() error { return goleak.Find(baseline) }).WithTimeout(within).Should(Succeed(), "goroutines left running after the spec")
})
