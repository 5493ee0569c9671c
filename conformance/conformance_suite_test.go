package conformance_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"
)

func TestConformance(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "wire conformance")
}

// Every peer, server and connection a spec starts must be gone when the suite ends.
var ignoreSuiteGoroutines goleak.Option

var _ = BeforeSuite(func() { ignoreSuiteGoroutines = goleak.IgnoreCurrent() })

var _ = AfterSuite(func() {
	Eventually(func() error { return goleak.Find(ignoreSuiteGoroutines) }).Should(Succeed(), "goroutines left running after the suite")
})
