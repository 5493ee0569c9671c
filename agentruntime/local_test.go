package agentruntime_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	ar "github.com/wirecheck/wirecheck/agentruntime"
)

const secretName, secretValue = "WIRECHECK_TEST_SECRET", "s3cr3t-Value-42"

var _ = Describe("Local adapter", Label("local"), func() {
	var (
		ctx    context.Context
		core   *coreStub
		rt     *ar.Local
		dir    string
		groups []int // process groups started by the test: none may survive it
	)

	suiteEnv := map[string]string{secretName: secretValue, "PLAIN_VAR": "plain-value"}
	lookup := func(n string) (string, bool) { v, ok := suiteEnv[n]; return v, ok }

	BeforeEach(func() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
		DeferCleanup(cancel)
		checkNoLeaks()
		core = newCoreStub()
		dir = GinkgoT().TempDir()
		groups = nil
		rt = ar.NewLocal(ar.LocalOptions{
			Allowlist: ar.AllowEnv(secretName, "PLAIN_VAR", "UNSET_VAR"),
			LookupEnv: lookup,
			Readiness: core.Readiness,
			StateDir:  filepath.Join(dir, "state"),
			RunID:     "test-run",
			Logger:    testLogger(),
		})
		DeferCleanup(func() {
			Expect(rt.Close()).To(Succeed())
			for _, g := range groups {
				Eventually(groupMembers).WithArguments(g).Should(BeEmpty(), "process group %d left behind", g)
			}
		})
	})

	spec := func(id string, args ...string) ar.UnitSpec {
		return ar.UnitSpec{
			ID: ar.UnitID(id), Command: testDaemon, Args: args,
			CoreURL: core.URL(), DeviceID: deviceOf(ar.UnitID(id)),
			LogPath: filepath.Join(dir, "logs", id+".log"),
		}
	}
	// launch provisions and starts s, and returns the daemon's PID (= its process group).
	launch := func(s ar.UnitSpec) int {
		GinkgoHelper()
		id, err := rt.Provision(ctx, s)
		Expect(err).NotTo(HaveOccurred())
		Expect(rt.Start(ctx, id)).To(Succeed())
		st, err := rt.Health(ctx, id)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.PID).To(BeNumerically(">", 0))
		groups = append(groups, st.PID)
		return st.PID
	}

	It("runs a unit from provisioned through starting and connected to stopped, and again", func() {
		core.Refuse(true)
		s := spec("life", "-term", "exit:0", "-dial")
		id, err := rt.Provision(ctx, s)
		Expect(err).NotTo(HaveOccurred())
		Expect(healthOf(rt, id)()).To(Equal(ar.Provisioned))

		pid := launch(s)
		waitReady(rt, id)
		st, err := rt.Health(ctx, id)
		Expect(err).NotTo(HaveOccurred())
		Expect(st).To(Equal(ar.Status{ID: id, Health: ar.Starting, PID: pid}), "alive, but Core has not heard from it")
		Expect(rt.Start(ctx, id)).To(MatchError(ar.ErrAlreadyRunning))

		core.Refuse(false)
		Eventually(healthOf(rt, id)).Should(Equal(ar.Connected))
		list, err := rt.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(list).To(Equal([]ar.Status{{ID: id, Health: ar.Connected, PID: pid}}))

		rec, err := rt.Recover(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(rec).To(Equal(ar.Ephemeral{}), "a local backend never adopts, and its own live unit is no orphan")

		// Core answers before the daemon prints that it dialed: a SIGTERM in between would lose the line.
		Eventually(logsOf(rt, id)).Should(ContainElement("dialed core"))
		t0 := time.Now()
		Expect(rt.Stop(ctx, id, 10*time.Second)).To(Succeed())
		Expect(time.Since(t0)).To(BeNumerically("<", 5*time.Second), "the daemon exits on SIGTERM: no wait for the grace")
		st, err = rt.Health(ctx, id)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Health).To(Equal(ar.Stopped))
		Expect(st.PID).To(BeZero())
		Expect(st.Exit).NotTo(BeNil())
		Expect(st.Exit.Code).To(Equal(0))
		Expect(st.Exit.Signal).To(BeZero())
		Expect(st.Exit.At).To(BeTemporally("~", time.Now(), 5*time.Second))
		Expect(groupMembers(pid)).To(BeEmpty())
		Expect(rt.Stop(ctx, id, time.Second)).To(Succeed(), "stopping a stopped unit is not an error")
		Expect(logsOf(rt, id)()).To(ContainElements(HavePrefix("ready pid="), "dialed core", "got SIGTERM, exiting 0"))

		pid2 := launch(s)
		Expect(pid2).NotTo(Equal(pid))
		waitReady(rt, id)
		Expect(rt.Stop(ctx, id, 10*time.Second)).To(Succeed())
	})

	It("names the processes of the group that outlived the daemon, and kills them", func() {
		s := spec("leaves-a-child", "-child", "-exit", "0")
		pid := launch(s)
		ex, err := rt.Wait(ctx, s.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(ex.Code).To(Equal(0))
		Expect(ex.LeftBehind).To(HaveLen(1), "the daemon's child outlived it")
		Expect(ex.String()).To(ContainSubstring("a process of its group outlived it and was killed"))
		Eventually(groupMembers).WithArguments(pid).Should(BeEmpty(), "SIGKILL is delivered asynchronously")
	})

	It("records an exit on its own with its code and time, stdout and stderr in order", func() {
		s := spec("exits", "-print", "to stdout", "-stderr", "to stderr", "-exit", "3")
		t0 := time.Now()
		launch(s)
		ex, err := rt.Wait(ctx, s.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(ex.Code).To(Equal(3))
		Expect(ex.Signal).To(BeZero())
		Expect(ex.At).To(BeTemporally(">=", t0))
		st, err := rt.Health(ctx, s.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Health).To(Equal(ar.Exited), "nobody asked it to stop")
		Expect(st.Exit).To(Equal(&ex))
		Expect(logsOf(rt, s.ID)()).To(Equal([]string{"to stdout", "to stderr"}))
		file, err := os.ReadFile(s.LogPath)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(file)).To(Equal("to stdout\nto stderr\n"))
	})

	// The Go testdaemon dies by default only from SIGKILL, SIGTERM, SIGINT and SIGHUP (the Go
	// runtime catches and ignores most others); coreutils' sleep dies by any terminating signal.
	DescribeTable("Kill delivers the signal and the exit records it",
		func(daemon string, sig syscall.Signal) {
			if signal.Ignored(sig) {
				// Inherited: an ignored disposition survives fork and exec (POSIX), so under nohup
				// the daemon ignores SIGHUP too, and Kill delivers a signal it will not die of.
				Skip(fmt.Sprintf("this test process ignores %v, and so would the daemon it launches", sig))
			}
			s := spec("killed")
			if daemon == "sleep" {
				path, err := exec.LookPath("sleep")
				Expect(err).NotTo(HaveOccurred())
				s.Command, s.Args = path, []string{"1000"}
			}
			pid := launch(s)
			if daemon != "sleep" {
				waitReady(rt, s.ID)
			}
			Expect(rt.Kill(ctx, s.ID, sig)).To(Succeed())
			ex, err := rt.Wait(ctx, s.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(ex.Signal).To(Equal(sig))
			Expect(ex.Code).To(Equal(-1))
			st, err := rt.Health(ctx, s.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(st.Health).To(Equal(ar.Exited))
			Expect(st.Exit.Signal).To(Equal(sig))
			Expect(groupMembers(pid)).To(BeEmpty())
		},
		Entry("SIGKILL", "testdaemon", syscall.SIGKILL),
		Entry("SIGTERM", "testdaemon", syscall.SIGTERM),
		Entry("SIGINT", "testdaemon", syscall.SIGINT),
		Entry("SIGHUP", "testdaemon", syscall.SIGHUP),
		Entry("SIGUSR1", "sleep", syscall.SIGUSR1),
		Entry("SIGUSR2", "sleep", syscall.SIGUSR2),
		Entry("SIGPIPE", "sleep", syscall.SIGPIPE),
		Entry("SIGALRM", "sleep", syscall.SIGALRM),
	)

	It("Kill reaches the whole process group", func() {
		s := spec("family", "-term", "ignore", "-child")
		pid := launch(s)
		waitReady(rt, s.ID)
		child := childPID(logsOf(rt, s.ID)())
		_, pgrp, _ := procStat(child)
		Expect(pgrp).To(Equal(pid))

		Expect(rt.Kill(ctx, s.ID, syscall.SIGTERM)).To(Succeed())
		Eventually(alive).WithArguments(child).Should(BeFalse(), "the daemon's child got SIGTERM too")
		Expect(healthOf(rt, s.ID)()).To(Equal(ar.Starting), "the daemon itself ignores SIGTERM")
	})

	It("records the code a daemon chooses when it traps SIGTERM; Kill is not Stop", func() {
		s := spec("trapped", "-term", "exit:7")
		launch(s)
		waitReady(rt, s.ID)
		Expect(rt.Kill(ctx, s.ID, syscall.SIGTERM)).To(Succeed())
		ex, err := rt.Wait(ctx, s.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(ex.Code).To(Equal(7))
		Expect(ex.Signal).To(BeZero())
		Expect(healthOf(rt, s.ID)()).To(Equal(ar.Exited), "the daemon ended the run, not the suite")
	})

	It("escalates a graceful stop to SIGKILL when the daemon ignores SIGTERM", func() {
		s := spec("stubborn", "-term", "ignore")
		launch(s)
		waitReady(rt, s.ID)
		const grace = 300 * time.Millisecond
		t0 := time.Now()
		Expect(rt.Stop(ctx, s.ID, grace)).To(Succeed())
		Expect(time.Since(t0)).To(BeNumerically(">=", grace))
		st, err := rt.Health(ctx, s.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Health).To(Equal(ar.Stopped))
		Expect(st.Exit.Signal).To(Equal(syscall.SIGKILL))
	})

	It("pauses the group with SIGSTOP (state T) and resumes it; a paused unit still stops", func() {
		s := spec("frozen", "-term", "exit:0")
		pid := launch(s)
		waitReady(rt, s.ID)

		Expect(rt.Pause(ctx, s.ID)).To(Succeed())
		Expect(healthOf(rt, s.ID)()).To(Equal(ar.Paused))
		state, _, _ := procStat(pid)
		Expect(state).To(Equal(byte('T')))
		Expect(rt.Pause(ctx, s.ID)).To(Succeed(), "pausing a paused unit is not an error")

		Expect(rt.Resume(ctx, s.ID)).To(Succeed())
		Expect(healthOf(rt, s.ID)()).To(Equal(ar.Starting))
		state, _, _ = procStat(pid)
		Expect(state).NotTo(Equal(byte('T')))

		Expect(rt.Pause(ctx, s.ID)).To(Succeed())
		Expect(rt.Stop(ctx, s.ID, 10*time.Second)).To(Succeed())
		st, err := rt.Health(ctx, s.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Health).To(Equal(ar.Stopped))
		Expect(st.Exit.Code).To(Equal(0), "SIGCONT followed SIGTERM, so the daemon handled it")
	})

	It("restarts into a new process group, keeping the output of both runs", func() {
		s := spec("again", "-print", "hello", "-term", "exit:0")
		pid := launch(s)
		waitReady(rt, s.ID)
		Expect(rt.Restart(ctx, s.ID, 5*time.Second)).To(Succeed())
		st, err := rt.Health(ctx, s.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Health).To(Equal(ar.Starting))
		Expect(st.PID).NotTo(Equal(pid))
		groups = append(groups, st.PID)
		Expect(groupMembers(pid)).To(BeEmpty())
		Eventually(func() int { return count(logsOf(rt, s.ID)(), "hello") }).Should(Equal(2))
		Expect(rt.Logs(ctx, s.ID, 1)).To(HaveLen(1))
		Expect(rt.Logs(ctx, s.ID, 0)).To(BeEmpty())
		Expect(rt.Stop(ctx, s.ID, 5*time.Second)).To(Succeed())
		file, err := os.ReadFile(s.LogPath)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Count(string(file), "hello\n")).To(Equal(2), "the log file is appended to")
	})

	It("builds the environment from the spec alone and fills placeholders and references", func() {
		GinkgoT().Setenv("SUITE_ONLY_VAR", "must-not-leak")
		s := spec("env", "-print-environ", "-print-cwd", "-print-args", "-exit", "0", "--",
			"--core={core_url}", "--device={device_id}", "--plain=${PLAIN_VAR}", "--dflt=${UNSET_VAR:-fallback}")
		s.Env = map[string]string{"MODE": "test-${PLAIN_VAR}", "URL_COPY": "{core_url}"}
		s.SecretEnv = []string{secretName}
		s.Workspace = GinkgoT().TempDir()
		launch(s)
		_, err := rt.Wait(ctx, s.ID)
		Expect(err).NotTo(HaveOccurred())
		lines := logsOf(rt, s.ID)()
		var environ []string
		for _, l := range lines {
			if v, ok := strings.CutPrefix(l, "environ="); ok {
				environ = strings.Split(v, ",")
			}
		}
		Expect(environ).To(ConsistOf("MODE", "URL_COPY", ar.EnvCoreURL, ar.EnvDeviceID, secretName),
			"nothing of the suite's environment (PATH, HOME, SUITE_ONLY_VAR) is inherited")
		Expect(lines).To(ContainElements(
			"cwd="+s.Workspace,
			"arg[6]=--core="+core.URL(),
			"arg[7]=--device="+deviceOf(s.ID),
			"arg[8]=--plain=plain-value",
			"arg[9]=--dflt=fallback",
		))
	})

	It("keeps a secret out of argv, out of the logs, the log file and the state file", func() {
		s := spec("secret", "-print-env", secretName)
		s.SecretEnv = []string{secretName}
		pid := launch(s)
		waitReady(rt, s.ID)
		Expect(procFile(pid, "cmdline")).NotTo(ContainSubstring(secretValue))
		Expect(procFile(pid, "environ")).To(ContainSubstring(secretName+"="+secretValue+"\x00"), "it did reach the daemon")
		lines := logsOf(rt, s.ID)()
		Expect(lines).To(ContainElement(secretName + "=" + ar.Redacted))
		Expect(strings.Join(lines, "\n")).NotTo(ContainSubstring(secretValue))
		for _, f := range []string{s.LogPath, filepath.Join(dir, "state", "secret.unit.json")} {
			b, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring(secretValue), f)
		}
	})

	It("refuses a spec reading variables the allowlist does not name, leaving no state", func() {
		strict := ar.NewLocal(ar.LocalOptions{LookupEnv: lookup, Logger: testLogger()}) // deny-all
		defer strict.Close()
		s := spec("greedy", "${PLAIN_VAR}", "${UNSET_VAR:-x}")
		s.SecretEnv = []string{secretName}
		_, err := strict.Provision(ctx, s)
		var denied *ar.DisallowedEnvError
		Expect(errors.As(err, &denied)).To(BeTrue(), "got %v", err)
		Expect(denied.Names).To(Equal([]string{"PLAIN_VAR", "UNSET_VAR", secretName}))
		Expect(strict.List(ctx)).To(BeEmpty())

		s = spec("leaky", "--token=${"+secretName+"}")
		s.SecretEnv = []string{secretName}
		_, err = rt.Provision(ctx, s)
		var bad *ar.SpecError
		Expect(errors.As(err, &bad)).To(BeTrue(), "got %v", err)
		Expect(bad.Field).To(Equal("Args"))
	})

	It("refuses an image: running one is the container adapter's job", func() {
		s := spec("boxed")
		s.Image = "localhost/some:image"
		_, err := rt.Provision(ctx, s)
		Expect(err).To(MatchError(ar.ErrUnsupported))
		var un *ar.UnsupportedError
		Expect(errors.As(err, &un)).To(BeTrue())
		Expect(un.Backend).To(Equal("local"))
		Expect(un.Need).To(ContainSubstring("container"))
	})

	It("answers NotFound, NotRunning and Unsupported honestly", func() {
		for _, err := range []error{
			rt.Start(ctx, "nope"), rt.Stop(ctx, "nope", 0), rt.Kill(ctx, "nope", syscall.SIGKILL),
			rt.Restart(ctx, "nope", 0), rt.Pause(ctx, "nope"), rt.Resume(ctx, "nope"), rt.Remove(ctx, "nope"),
			second(rt.Health(ctx, "nope")), second(rt.Wait(ctx, "nope")), second(rt.Logs(ctx, "nope", 1)),
		} {
			Expect(err).To(MatchError(ar.ErrNotFound))
		}
		id, err := rt.Provision(ctx, spec("idle"))
		Expect(err).NotTo(HaveOccurred())
		for _, err := range []error{
			rt.Kill(ctx, id, syscall.SIGTERM), rt.Pause(ctx, id), rt.Resume(ctx, id), second(rt.Wait(ctx, id)),
		} {
			Expect(err).To(MatchError(ar.ErrNotRunning))
		}
		Expect(rt.Stop(ctx, id, 0)).To(Succeed())
		Expect(rt.Logs(ctx, id, ar.AllLines)).To(BeEmpty(), "nothing logged yet, and that is not Unsupported")
		Expect(rt.Kill(ctx, id, syscall.SIGSTOP)).To(MatchError(ar.ErrUnsupported))
	})

	It("reports a daemon that cannot be started as a SpawnError and stays provisioned", func() {
		s := spec("ghost")
		s.Command = filepath.Join(dir, "no-such-daemon")
		id, err := rt.Provision(ctx, s)
		Expect(err).NotTo(HaveOccurred())
		err = rt.Start(ctx, id)
		var se *ar.SpawnError
		Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
		Expect(se.Op).To(Equal("start"))
		Expect(healthOf(rt, id)()).To(Equal(ar.Provisioned))
	})

	It("removes a live unit: killed and forgotten", func() {
		s := spec("doomed", "-term", "ignore")
		pid := launch(s)
		Expect(rt.Remove(ctx, s.ID)).To(Succeed())
		Expect(groupMembers(pid)).To(BeEmpty())
		Expect(second(rt.Health(ctx, s.ID))).To(MatchError(ar.ErrNotFound))
		Expect(rt.List(ctx)).To(BeEmpty())
	})

	It("closes by killing every live unit; later calls fail with ErrClosed", func() {
		p1 := launch(spec("one", "-term", "ignore", "-child"))
		p2 := launch(spec("two"))
		Expect(rt.Close()).To(Succeed())
		Eventually(groupMembers).WithArguments(p1).Should(BeEmpty())
		Expect(groupMembers(p2)).To(BeEmpty())
		Expect(rt.Start(ctx, "one")).To(MatchError(ar.ErrClosed))
		_, err := rt.Provision(ctx, spec("three"))
		Expect(err).To(MatchError(ar.ErrClosed))
	})

	It("lets a restarted supervisor reap the orphan its killed predecessor left, answering Ephemeral", func() {
		stateDir := filepath.Join(dir, "crash-state")
		sup, pid, child := startCrashingSupervisor(stateDir)
		groups = append(groups, pid)
		Expect(alive(pid)).To(BeTrue())
		Expect(alive(child)).To(BeTrue())

		Expect(sup.Process.Kill()).To(Succeed())
		Expect(sup.Wait()).To(HaveOccurred())
		Eventually(alive).WithArguments(pid).Should(BeFalse(), "Pdeathsig: the daemon dies with its supervisor")
		Expect(alive(child)).To(BeTrue(), "its own child has no Pdeathsig: an orphan")
		_, pgrp, _ := procStat(child)
		Expect(pgrp).To(Equal(pid))

		next := ar.NewLocal(ar.LocalOptions{StateDir: stateDir, Logger: testLogger()})
		defer next.Close()
		rec, err := next.Recover(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(rec).To(Equal(ar.Ephemeral{Reaped: []ar.Orphan{
			{ID: "orphan", RunID: "crashed-run", PGID: pid, PIDs: []int{child}},
		}}))
		Expect(alive(child)).To(BeFalse())
		Expect(groupMembers(pid)).To(BeEmpty())
		Expect(filepath.Glob(filepath.Join(stateDir, "*.json"))).To(BeEmpty())

		rec, err = next.Recover(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(rec).To(Equal(ar.Ephemeral{}), "recover is idempotent")
	})
})

func second[T any](_ T, err error) error { return err }

func count(lines []string, s string) int {
	n := 0
	for _, l := range lines {
		if l == s {
			n++
		}
	}
	return n
}

func childPID(lines []string) int {
	GinkgoHelper()
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, "child="); ok {
			pid, err := strconv.Atoi(v)
			Expect(err).NotTo(HaveOccurred())
			return pid
		}
	}
	Fail("no child= line in " + strings.Join(lines, " | "))
	return 0
}
