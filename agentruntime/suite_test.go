package agentruntime_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/agentruntime"
	"github.com/wirecheck/wirecheck/internal/testbin"
)

// Environment of the helper modes of this test binary.
const (
	envSupervisor = "AGENTRUNTIME_TEST_SUPERVISOR" // run as a crashing supervisor (see superviseMain)
	envDaemon     = "AGENTRUNTIME_TEST_DAEMON"     // path of the built testdaemon
	envStateDir   = "AGENTRUNTIME_TEST_STATE_DIR"
)

func TestMain(m *testing.M) {
	if os.Getenv(envSupervisor) != "" {
		os.Exit(superviseMain())
	}
	goleak.VerifyTestMain(m, ginkgoGoroutines...)
}

// ginkgoGoroutines are Ginkgo's own, alive for the whole process.
var ginkgoGoroutines = []goleak.Option{
	goleak.IgnoreTopFunction("github.com/onsi/ginkgo/v2/internal/interrupt_handler.(*InterruptHandler).registerForInterrupts.func2"),
}

// testLogger sends an adapter's log to the spec's output.
func testLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(GinkgoWriter, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// checkNoLeaks registers a cleanup, to run after every cleanup registered later, that fails the
// spec if it leaves a goroutine behind.
func checkNoLeaks() {
	before := goleak.IgnoreCurrent()
	DeferCleanup(func() {
		Expect(goleak.Find(append(ginkgoGoroutines, before)...)).To(Succeed())
	})
}

func TestAgentRuntime(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(time.Minute) // a bound, not a wait: a load average of 30 on two CPUs must not reach it
	SetDefaultEventuallyPollingInterval(10 * time.Millisecond)
	RunSpecs(t, "agentruntime")
}

// testDaemon is the path of the static testdaemon binary, built once per suite.
var testDaemon string

var _ = BeforeSuite(func() {
	var err error
	testDaemon, err = testbin.Build("./internal/testdaemon", "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
	Expect(err).NotTo(HaveOccurred())
})

// superviseMain is a supervisor that gets killed: it starts one unit whose daemon spawns a child
// in its process group, prints "supervising pid=P child=C", and waits to be SIGKILLed.
func superviseMain() int {
	ctx := context.Background()
	rt := agentruntime.NewLocal(agentruntime.LocalOptions{
		StateDir: os.Getenv(envStateDir), RunID: "crashed-run",
	})
	id, err := rt.Provision(ctx, agentruntime.UnitSpec{
		ID: "orphan", Command: os.Getenv(envDaemon), Args: []string{"-child"},
	})
	if err == nil {
		err = rt.Start(ctx, id)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "supervisor:", err)
		return 1
	}
	// A bounded poll of the unit's log for the daemon's "child=" and "ready" lines.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); <-tick.C {
		lines, _ := rt.Logs(ctx, id, agentruntime.AllLines)
		child, ready := "", false
		for _, l := range lines {
			if c, ok := strings.CutPrefix(l, "child="); ok {
				child = c
			}
			ready = ready || strings.HasPrefix(l, "ready ")
		}
		if child != "" && ready {
			st, _ := rt.Health(ctx, id)
			fmt.Printf("supervising pid=%d child=%s\n", st.PID, child)
			select {} // until SIGKILL
		}
	}
	fmt.Fprintln(os.Stderr, "supervisor: daemon never became ready")
	return 1
}

// startCrashingSupervisor runs superviseMain in a child process and returns it with the daemon's
// and its child's PIDs once both are up.
func startCrashingSupervisor(stateDir string) (*exec.Cmd, int, int) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envSupervisor+"=1", envDaemon+"="+testDaemon, envStateDir+"="+stateDir)
	cmd.Stderr = GinkgoWriter
	stdout, err := cmd.StdoutPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(cmd.Start()).To(Succeed())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	Expect(err).NotTo(HaveOccurred(), "supervisor said nothing")
	var pid, child int
	_, err = fmt.Sscanf(line, "supervising pid=%d child=%d", &pid, &child)
	Expect(err).NotTo(HaveOccurred(), "supervisor said %q", line)
	return cmd, pid, child
}

// --- processes, as /proc shows them ---

// procStat returns a process's state letter and process group, ok=false when it does not exist.
func procStat(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	pgrp, _ = strconv.Atoi(f[2])
	return f[0][0], pgrp, true
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	s, _, ok := procStat(pid)
	return ok && s != 'Z' && s != 'X'
}

// groupMembers lists live (non-zombie) processes in process group pgid.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, g, ok := procStat(pid); ok && g == pgid && s != 'Z' && s != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

func procFile(pid int, name string) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, name))
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// --- a stand-in for the scripted Core: records which devices dialled it ---

type coreStub struct {
	srv    *httptest.Server
	mu     sync.Mutex
	seen   map[string]bool
	refuse bool
}

func newCoreStub() *coreStub {
	c := &coreStub{seen: map[string]bool{}}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.refuse {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		c.seen[r.URL.Query().Get("device")] = true
	}))
	DeferCleanup(c.srv.Close)
	return c
}

func (c *coreStub) URL() string { return c.srv.URL }

// Refuse makes the stub answer 503 (the daemon keeps retrying) until called with false.
func (c *coreStub) Refuse(v bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refuse = v
}

func deviceOf(id agentruntime.UnitID) string { return "device-" + string(id) }

// Readiness is "the Core has heard from this unit's device".
func (c *coreStub) Readiness(_ context.Context, id agentruntime.UnitID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[deviceOf(id)]
}

// --- small helpers ---

func healthOf(rt agentruntime.Runtime, id agentruntime.UnitID) func() agentruntime.Health {
	return func() agentruntime.Health {
		st, err := rt.Health(context.Background(), id)
		Expect(err).NotTo(HaveOccurred())
		return st.Health
	}
}

func logsOf(rt agentruntime.Runtime, id agentruntime.UnitID) func() []string {
	return func() []string {
		lines, err := rt.Logs(context.Background(), id, agentruntime.AllLines)
		Expect(err).NotTo(HaveOccurred())
		return lines
	}
}

// waitReady waits for the daemon's "ready" line: its signal handling is in place.
func waitReady(rt agentruntime.Runtime, id agentruntime.UnitID) {
	GinkgoHelper()
	Eventually(logsOf(rt, id)).WithPolling(5 * time.Millisecond).
		Should(ContainElement(HavePrefix("ready ")))
}
