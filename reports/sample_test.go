package reports_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/reports"
)

// WIRECHECK_REPORTS_SAMPLE=/some/dir go test ./reports leaves two bundles there for people to look
// at: every outcome with real results (mixed/), and the reference Runtime alone (certified/).
var _ = Describe("sample bundles", Label("sample"), func() {
	It("are written where WIRECHECK_REPORTS_SAMPLE says", func() {
		dir := os.Getenv("WIRECHECK_REPORTS_SAMPLE")
		if dir == "" {
			Skip("WIRECHECK_REPORTS_SAMPLE is not set")
		}
		certified := realRun()
		certified.Cases = nil
		for _, c := range realResults() {
			if !strings.HasPrefix(c.Result.Scenario, "broken/") {
				certified.Cases = append(certified.Cases, c)
			}
		}
		Expect(certified.OK()).To(BeTrue(), certified.ProfileLine())
		for name, run := range map[string]*reports.Run{"mixed": mixedRun(), "certified": certified} {
			Expect(os.RemoveAll(filepath.Join(dir, name))).To(Succeed())
			Expect(reports.WriteBundle(filepath.Join(dir, name), run)).To(Succeed())
		}
	})
})
