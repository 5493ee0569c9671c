package reports_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a sample bundle", Label("sample"), func() {
	It("is written where WIRECHECK_REPORTS_SAMPLE says", func() {
		Expect(writeSample(mixedRun())).To(Succeed())
	})
})
