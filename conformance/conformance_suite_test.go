package conformance_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// scenarioTimeout bounds one scenario in one pairing: a safety net behind the bounds the runner
// gives each play (runner.ScenarioBound), never a budget a loaded machine can run out of.
const scenarioTimeout = 10 * time.Minute

var (
	catalog = func() *scenarios.Catalog {
		c, err := scenarios.Embedded()
		if err != nil {
			panic(fmt.Sprintf("the embedded catalog does not load:\n%v", err))
		}
		return c
	}()

	// daemon is the wirecheck binary the child-process pairing runs, built only if one of its
	// specs will run. It stays between runs (testbin): the link that saves was a tenth of the
	// gate's CPU.
	daemon = func() string {
		bin, err := testbin.Path(wirecheckCmd)
		if err != nil {
			panic(fmt.Sprintf("no place for the daemon binary: %v", err))
		}
		return bin
	}()
	pairings = runner.Pairings(daemon)

	// willRun holds the keys (pairing, scenario) of the specs Ginkgo's filters select.
	willRun = map[string]bool{}
	batch   *runner.Batch
)

func TestConformance(t *testing.T) {
	RegisterFailHandler(Fail)
	// Which specs the filters (--ginkgo.label-filter, --ginkgo.focus, ...) select is decided by
	// Ginkgo itself, so the batch plays exactly those.
	for _, sr := range PreviewSpecs("wire conformance").SpecReports {
		if sr.State == types.SpecStatePassed && len(sr.ContainerHierarchyTexts) > 0 {
			willRun[key(sr.ContainerHierarchyTexts[0], sr.LeafNodeText)] = true
		}
	}
	RunSpecs(t, "wire conformance")
}

func key(pairing, scenario string) string { return pairing + "\x00" + scenario }

// Every peer, server, connection and process a spec starts must be gone when the suite ends.
var ignoreSuiteGoroutines goleak.Option

// BeforeSuite starts every selected scenario play of every pairing in one parallel batch.
var _ = BeforeSuite(func(ctx SpecContext) {
	ignoreSuiteGoroutines = goleak.IgnoreCurrent()
	for _, p := range pairings {
		if p.Close != nil {
			DeferCleanup(p.Close)
		}
	}
	seed := fmt.Sprint(GinkgoRandomSeed())
	background := context.WithoutCancel(ctx)
	// The child-process pairing's daemon is linked while the in-process plays, which come first in
	// the batch, run: linking is seconds of one core that nothing else waits for.
	daemonBuilt := make(chan error, 1)
	buildOnce := sync.OnceFunc(func() { go func() { daemonBuilt <- buildDaemon(background) }() })
	awaitDaemon := sync.OnceValue(func() error { return <-daemonBuilt })
	building := false
	DeferCleanup(func() { // after the batch has stopped: no build outlives the suite
		if building {
			_ = awaitDaemon()
		}
	})
	// The child-process plays are the gate's real-time ones and most of its CPU (a daemon each):
	// fewer of them at once than of the in-process plays, so a loaded machine stretches each less.
	// They are the batch's longest lane, so they are queued first and the in-process plays fill
	// the places they leave.
	children := runner.NewLane(childParallelism())
	var jobs, childJobs []runner.Job
	childWait := map[string]time.Duration{}
	for _, p := range pairings {
		for _, sc := range catalog.Scenarios {
			k := key(p.Name, sc.ID)
			if !willRun[k] || !p.Covers(sc) || p.Skip(sc) != "" {
				continue
			}
			child := p.Name == runner.ChildProcessName
			if child {
				building = true
				buildOnce()
			}
			job := runner.Job{Key: k, Play: func(ctx context.Context) *scenarios.Result {
				if child {
					if err := awaitDaemon(); err != nil {
						return &scenarios.Result{Scenario: sc.ID, Title: sc.Title, Played: scenarios.SideCore, Verdict: scenarios.HarnessError,
							Failure: &scenarios.Failure{Message: err.Error()}}
					}
				}
				ctx, cancel := context.WithTimeout(ctx, scenarioTimeout)
				defer cancel()
				return p.Play(ctx, sc, seed)
			}}
			if child {
				job.Lane = children
				childJobs = append(childJobs, job)
				childWait[k] = runner.ExpectedRealTime(sc)
			} else {
				jobs = append(jobs, job)
			}
		}
	}
	// The child plays that wait longest in real time (a stalled upgrade: 10 s) start first.
	slices.SortStableFunc(childJobs, func(a, b runner.Job) int { return cmp.Compare(childWait[b.Key], childWait[a.Key]) })
	jobs = append(childJobs, jobs...)
	batch = runner.StartBatch(background, jobs, parallelism(), nil)
	DeferCleanup(batch.Stop)
	AddReportEntry("batch", fmt.Sprintf("%d scenario plays, %d at once (%d of them child processes)", len(jobs), parallelism(), childParallelism()))
}, NodeTimeout(3*time.Minute))

var _ = AfterSuite(func() {
	Expect(livingChildren()).To(BeEmpty(), "processes the suite started are still running")
	// An advance that waited out clock.HoldGuard met a goroutine that never released its Hold:
	// the play still passed, a minute late, and the next such bug could hang instead.
	Expect(clock.Overheld()).To(BeZero(), "advances that gave up waiting for a clock Hold (a holder that never released)")
})

// The goroutine check runs last, after every DeferCleanup of the suite (the batch, the daemons).
var _ = ReportAfterSuite("no goroutine left behind", func(Report) {
	if ignoreSuiteGoroutines == nil {
		return
	}
	// A bound, not a wait: the goroutines end as soon as they see their connections close.
	Eventually(func() error { return goleak.Find(ignoreSuiteGoroutines) }).WithTimeout(time.Minute).Should(Succeed(), "goroutines left running after the suite")
})

// parallelism is how many scenario plays run at once: most of their time is spent waiting (on
// sockets, silence windows, a daemon starting), so many per core. WIRECHECK_GATE_PARALLEL
// overrides it.
func parallelism() int {
	if n, err := strconv.Atoi(os.Getenv("WIRECHECK_GATE_PARALLEL")); err == nil && n > 0 {
		return n
	}
	return 16 * runtime.GOMAXPROCS(0)
}

// childParallelism is how many of them may be child-process plays.
func childParallelism() int { return max(1, min(parallelism(), 8*runtime.GOMAXPROCS(0))) }

const wirecheckCmd = "github.com/wirecheck/wirecheck/cmd/wirecheck"

// buildDaemon builds the wirecheck binary whose `runtime` command the child-process pairing runs.
func buildDaemon(context.Context) error {
	_, err := testbin.Build(wirecheckCmd)
	return err
}

// livingChildren lists the processes whose parent is this test process (Linux /proc), zombies
// left out.
func livingChildren() []string {
	entries, _ := os.ReadDir("/proc")
	me := strconv.Itoa(os.Getpid())
	var out []string
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
		end := strings.LastIndexByte(string(stat), ')')
		fields := strings.Fields(string(stat[end+1:]))
		if len(fields) > 1 && fields[1] == me && fields[0] != "Z" {
			out = append(out, strings.TrimSpace(string(stat[:end+1])))
		}
	}
	return out
}
