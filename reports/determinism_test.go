package reports_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/reports"
)

var _ = Describe("determinism", Label("determinism"), func() {
	It("renders the same run to the same bytes, whatever the order of its cases", func() {
		for _, w := range writers {
			first := render(w.write, mixedRun())
			for range 3 {
				run := mixedRun()
				rand.Shuffle(len(run.Cases), func(i, j int) { run.Cases[i], run.Cases[j] = run.Cases[j], run.Cases[i] })
				Expect(render(w.write, run) == first).To(BeTrue(), w.name)
			}
		}
	})

	It("writes the same bundle twice", func() {
		a, b := filepath.Join(GinkgoT().TempDir(), "a"), filepath.Join(GinkgoT().TempDir(), "b")
		Expect(reports.WriteBundle(a, mixedRun())).To(Succeed())
		Expect(reports.WriteBundle(b, mixedRun())).To(Succeed())
		ma, err := os.ReadFile(filepath.Join(a, reports.BundleManifest))
		Expect(err).NotTo(HaveOccurred())
		mb, err := os.ReadFile(filepath.Join(b, reports.BundleManifest))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(ma)).To(Equal(string(mb)))
	})

	It("prints only the times the run holds", func() {
		run := mixedRun()
		before := render(reports.WriteHTML, run)
		run.Finished = run.Finished.Add(1500 * 1e6)
		after := render(reports.WriteHTML, run)
		Expect(before == after).To(BeFalse(), "Finished is shown")
	})
})
