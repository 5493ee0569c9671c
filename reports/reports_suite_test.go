package reports_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestReports(t *testing.T) {
	RegisterFailHandler(Fail)
	// A bound, not a wait: Eventually returns as soon as what it waits for holds; a load average of 30
	// on two CPUs must not reach it.
	SetDefaultEventuallyTimeout(time.Minute)
	RunSpecs(t, "reports")
}
