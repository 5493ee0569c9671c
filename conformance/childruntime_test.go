package conformance_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/conformance"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// realTimeBudget is the most virtual time a scenario may advance and still be played in real time
// against the child process; longer ones are left to the in-process run on the virtual clock.
const realTimeBudget = time.Second

var _ = Describe("runtime: reference as a child process", Label("runtime", "process"), Ordered, func() {
	var (
		binary    string
		durations []time.Duration
		slowest   []string // the scenarios that took longer than a second, with their time
		leftOut   []string
	)

	BeforeAll(func(ctx SpecContext) {
		dir, err := os.MkdirTemp("", "wirecheck-child-")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, dir)
		binary = filepath.Join(dir, "wirecheck")
		goTool, err := exec.LookPath("go")
		Expect(err).NotTo(HaveOccurred(), "building the daemon needs the go tool on PATH")
		build := exec.CommandContext(ctx, goTool, "build", "-o", binary, "github.com/wirecheck/wirecheck/cmd/wirecheck")
		out, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "go build ./cmd/wirecheck:\n%s", out)
	}, NodeTimeout(3*time.Minute))

	AfterAll(func() {
		Expect(livingChildren()).To(BeEmpty(), "processes the suite started are still running")
		summary := fmt.Sprintf("%d scenarios played against `wirecheck runtime` as a child process in real time", len(durations))
		if len(durations) > 0 {
			slices.Sort(durations)
			summary += fmt.Sprintf("; median %v, slowest %v", durations[len(durations)/2].Round(time.Millisecond), durations[len(durations)-1].Round(time.Millisecond))
		}
		if len(slowest) > 0 {
			summary += "; over a second: " + strings.Join(slowest, ", ")
		}
		if len(leftOut) == 0 {
			summary += "; none left to the in-process run"
		} else {
			summary += "; left to the in-process run:\n  " + strings.Join(leftOut, "\n  ")
		}
		AddReportEntry("child-process run", summary, ReportEntryVisibilityAlways)
	})

	for _, sc := range catalog.Scenarios {
		if !sc.Tests.Covers(scenarios.SideRuntime) {
			continue
		}
		if total := totalAdvance(sc); total > realTimeBudget {
			why := fmt.Sprintf("%s: its steps advance the clock %v in total, more than the %v of real time a child-process run may take", sc.ID, total, realTimeBudget)
			leftOut = append(leftOut, why)
			It(sc.ID, Label(sc.Labels...), func() { Skip("left to the in-process run: " + why) })
			continue
		}
		It(sc.ID, Label(sc.Labels...), func(ctx SpecContext) {
			ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			start := time.Now()
			r := conformance.ChildRuntime(ctx2, sc, fmt.Sprint(GinkgoRandomSeed()), binary)
			took := time.Since(start)
			durations = append(durations, took)
			if took > time.Second {
				slowest = append(slowest, fmt.Sprintf("%s (%v)", sc.ID, took.Round(time.Millisecond)))
			}
			Expect(r.Verdict).To(Equal(scenarios.Pass), "%s\n%s", r, childReport(r))
			code, _, ok := conformance.ChildExitCode(r)
			Expect(ok).To(BeTrue(), "the child did not exit on its own or on SIGTERM\n%s", childReport(r))
			want, why := expectedExit(sc)
			Expect(code).To(Equal(want), "wirecheck runtime must exit %d: %s\n%s", want, why, childReport(r))
		})
	}
})

// totalAdvance is how far a scenario moves the clock: its advance steps and its settle steps'
// advance, includes expanded.
func totalAdvance(sc *scenarios.Scenario) time.Duration {
	var total time.Duration
	for _, st := range sc.Steps {
		if st.Kind == scenarios.StepAdvance || st.Kind == scenarios.StepSettle {
			total += st.Advance
		}
	}
	return total
}

// expectedExit is the exit code of `wirecheck runtime` at the end of a scenario.
func expectedExit(sc *scenarios.Scenario) (int, string) {
	if h := sc.Handshake; h != nil && h.Expect != nil {
		if h.Expect.Status == http.StatusUpgradeRequired {
			return 3, "Core refused the wire version"
		}
		if proto.PermanentHTTPStatus(h.Expect.Status) {
			return 2, "Core refused the connection for good"
		}
	}
	for _, st := range sc.Steps {
		if st.Kind == scenarios.StepDisconnect && st.Close.By == proto.Core && st.Close.Code == proto.CloseRuntimeDeleted {
			return 2, "Core retired the runtime with a 4001 close"
		}
	}
	return 0, "SIGTERM stops it gracefully"
}

// childReport renders how the child ended and what it logged.
func childReport(r *scenarios.Result) string {
	var b strings.Builder
	for _, x := range r.Transcript {
		if x.Dir == scenarios.Event && (x.Type == conformance.EventChildExit || x.Type == conformance.EventChildOutput) {
			fmt.Fprintf(&b, "%s: %s\n", x.Type, x.Note)
		}
	}
	return b.String()
}

// livingChildren lists the processes whose parent is this test process (Linux /proc).
func livingChildren() []string {
	entries, _ := os.ReadDir("/proc")
	me := os.Getpid()
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) > 1 && fields[1] == strconv.Itoa(me) {
			out = append(out, fmt.Sprintf("pid %d (%s)", pid, strings.TrimSpace(string(stat[:strings.IndexByte(string(stat), ')')+1]))))
		}
	}
	return out
}
