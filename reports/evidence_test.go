package reports_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// daemonRun has a passing case whose daemon was still running at the end, with more output than
// a report keeps and a secret in it, and a failing one whose daemon exited.
func daemonRun() *reports.Run {
	var long []string
	for i := range 250 {
		long = append(long, fmt.Sprintf("line %03d token=%s", i, secret))
	}
	passed := result("a/passes", scenarios.Pass, nil, nil)
	passed.Daemons = []scenarios.Daemon{{Code: -1, Output: long}}
	exited := result("a/exits", scenarios.Fail, &scenarios.Failure{Message: "the daemon exited with status 3"}, nil)
	exited.Daemons = []scenarios.Daemon{{Exit: "exit code 3", Code: 3, Output: []string{"starting", "panic: boom"}}}
	return &reports.Run{Profile: contractProfile(), Redact: []string{secret}, Cases: []reports.Case{{Result: passed}, {Result: exited}}}
}

var _ = Describe("evidence", Label("evidence"), func() {
	It("keeps the bounded, redacted tail of every daemon's output, whether it exited or not", func() {
		run := daemonRun()
		var doc struct {
			Cases []struct {
				ID      string
				Daemons []struct {
					Exit   string
					Code   int
					Output []string
				}
			}
		}
		out := render(reports.WriteJSON, run)
		Expect(compileSchema().Validate(instance(out))).To(Succeed())
		Expect(json.Unmarshal([]byte(out), &doc)).To(Succeed())
		exits, passes := doc.Cases[0], doc.Cases[1]
		Expect(exits.Daemons[0].Exit).To(Equal("exit code 3"))
		Expect(exits.Daemons[0].Output).To(Equal([]string{"starting", "panic: boom"}))
		kept := passes.Daemons[0].Output
		Expect(kept).To(HaveLen(reports.OutputLines + 1))
		Expect(kept[0]).To(Equal("[… 50 earlier lines not kept]"))
		Expect(kept[1]).To(Equal("line 050 token=[REDACTED]"))
		Expect(kept[200]).To(Equal("line 249 token=[REDACTED]"))
		Expect(run.Cases[0].Result.Daemons[0].Output).To(HaveLen(250), "the Run itself is left as it was")

		page := render(reports.WriteHTML, run)
		Expect(page).To(ContainSubstring(`<details class="daemon"><summary>daemon: exit code 3; the last 2 lines of its stdout and stderr</summary><pre>starting
panic: boom</pre></details>`))
		Expect(page).To(ContainSubstring(`<details class="daemon"><summary>daemon: still running when the scenario ended; the last 201 lines of its stdout and stderr</summary><pre>[… 50 earlier lines not kept]`))
		Expect(render(reports.WriteMarkdown, run)).To(ContainSubstring("- `daemon: exit code 3`\n"))
		Expect(junitCase(parseJUnit(render(reports.WriteJUnit, run)), "a/exits").SystemOut).To(HaveSuffix("# daemon: exit code 3; the last 2 lines of its stdout and stderr\nstarting\npanic: boom\n"))
		for _, w := range writers {
			Expect(render(w.write, run)).NotTo(ContainSubstring(secret), w.name)
		}

		dir := filepath.Join(GinkgoT().TempDir(), "bundle")
		Expect(reports.WriteBundle(dir, run)).To(Succeed())
		log, err := os.ReadFile(filepath.Join(dir, "daemons", "a__exits.log"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(log)).To(Equal("# daemon: exit code 3; the last 2 lines of its stdout and stderr\nstarting\npanic: boom\n"))
		log, err = os.ReadFile(filepath.Join(dir, "daemons", "a__passes.log"))
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Count(string(log), "\n")).To(Equal(reports.OutputLines + 2))
		Expect(string(log)).NotTo(ContainSubstring(secret))
		manifest, err := os.ReadFile(filepath.Join(dir, reports.BundleManifest))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(manifest)).To(ContainSubstring(`"path": "daemons/a__exits.log"`))
	})

	It("bounds the output by size too, keeping the end of a line too long for the bound", func() {
		run := daemonRun()
		huge := strings.Repeat("é", reports.OutputBytes) + "THE END"
		run.Cases[0].Result.Daemons[0].Output = []string{"first", huge}
		var doc struct {
			Cases []struct{ Daemons []struct{ Output []string } }
		}
		Expect(json.Unmarshal([]byte(render(reports.WriteJSON, run)), &doc)).To(Succeed())
		kept := doc.Cases[1].Daemons[0].Output
		Expect(kept[0]).To(Equal("[… 1 earlier line not kept]"))
		Expect(kept[1]).To(HaveSuffix("éTHE END"))
		Expect(len(kept[1])).To(BeNumerically("<=", reports.OutputBytes+len("…")))
	})

	It("places events recorded elsewhere (the fault relay's) at their time, in the step then in force", func() {
		hb := heartbeatFrame("preparation")
		t := append(connect(hb),
			scenarios.Exchange{At: 1 * time.Millisecond, Dir: scenarios.Event, Step: 1, Type: "fault", Note: "armed: f.yaml:4"},
			scenarios.Exchange{At: 2 * time.Millisecond, Dir: scenarios.CoreToRuntime, Step: 2, Type: "execution_prepare", Frame: `{"type":"execution_prepare","id":"p"}`},
			scenarios.Exchange{At: 4 * time.Millisecond, Dir: scenarios.RuntimeToCore, Step: 3, Type: "preparation_status", Frame: `{"type":"preparation_status","id":"p"}`},
			// Appended by the runner after the scenario, with the time it happened.
			scenarios.Exchange{At: 3 * time.Millisecond, Dir: scenarios.Event, Type: "fault", Note: "conn 1 core→runtime execution_prepare: duplicate"},
		)
		run := &reports.Run{Profile: contractProfile(), Cases: []reports.Case{{Result: result("faults/x", scenarios.Pass, nil, t)}}}
		var doc struct {
			Cases []struct {
				Transcript []struct {
					AtMS float64 `json:"at_ms"`
					Step int
					Note string
				}
			}
		}
		Expect(json.Unmarshal([]byte(render(reports.WriteJSON, run)), &doc)).To(Succeed())
		tx := doc.Cases[0].Transcript
		Expect(tx[5].Note).To(Equal("conn 1 core→runtime execution_prepare: duplicate"))
		Expect(tx[5].AtMS).To(Equal(3.0))
		Expect(tx[5].Step).To(Equal(2), "the step in force when it happened")
		Expect(tx[6].AtMS).To(Equal(4.0))

		d := diagramOf(caseSection(render(reports.WriteHTML, run), "faults/x"))
		Expect(d.Rows[5].G.Text).To(Equal("fault: conn 1 core→runtime execution_prepare: duplicate"))
		Expect(d.Rows[6].G.Text).To(Equal("preparation_status · p"))
	})

	It("gives a failure before the first step its file:line in every report", func() {
		f := &scenarios.Failure{Pos: scenarios.Pos{File: "catalog/connection/version.yaml", Line: 4},
			Message: "Core answered 426 version_unsupported; the scenario expects 400 missing_params"}
		run := &reports.Run{Profile: contractProfile(), Cases: []reports.Case{{Result: result("connection/v", scenarios.Fail, f, nil)}}}
		const where = "before the first step, catalog/connection/version.yaml:4"
		Expect(parseJUnit(render(reports.WriteJUnit, run)).Suites[0].Cases[0].Failure.Message).To(HaveSuffix("(" + where + ")"))
		Expect(render(reports.WriteMarkdown, run)).To(ContainSubstring("- **fail**, before the first step at `catalog/connection/version.yaml:4`\n"))
		Expect(render(reports.WriteHTML, run)).To(ContainSubstring(`<div class="where">Before the first step — <code>catalog/connection/version.yaml:4</code></div>`))
	})
})
