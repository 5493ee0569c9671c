package agentruntime_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	ar "github.com/wirecheck/wirecheck/agentruntime"
)

const testImage = "localhost/wirecheck-testdaemon:test"

// syncBuffer is a bytes.Buffer safe for the adapter's logger and the spec to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// requireEngine returns a usable engine. Without one the container specs are skipped on a
// developer's machine and fail in CI, which must run them.
func requireEngine(ctx context.Context) string {
	engine, err := ar.DetectEngine(ctx)
	if err != nil {
		msg := fmt.Sprintf("container specs need podman (bash .ci/install-container-engine.sh): %v", err)
		if os.Getenv("CI") != "" {
			Fail(msg + "; CI must run them")
		}
		Skip(msg)
	}
	return engine
}

// engineCmd runs the engine directly, as a person checking on the adapter would.
func engineCmd(engine string, args ...string) (string, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(engine, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", engine, strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// importTestImage makes an image of the static testdaemon without a registry: a tar holding
// /testdaemon, imported with CMD set.
func importTestImage(engine string) {
	GinkgoHelper()
	bin, err := os.ReadFile(testDaemon)
	Expect(err).NotTo(HaveOccurred())
	tarPath := filepath.Join(GinkgoT().TempDir(), "rootfs.tar")
	f, err := os.Create(tarPath)
	Expect(err).NotTo(HaveOccurred())
	tw := tar.NewWriter(f)
	Expect(tw.WriteHeader(&tar.Header{Name: "testdaemon", Mode: 0o755, Size: int64(len(bin)),
		ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg})).To(Succeed())
	_, err = tw.Write(bin)
	Expect(err).NotTo(HaveOccurred())
	Expect(tw.Close()).To(Succeed())
	Expect(f.Close()).To(Succeed())
	_, err = engineCmd(engine, "import", "--change", `CMD ["/testdaemon"]`, tarPath, testImage)
	Expect(err).NotTo(HaveOccurred())
}

// hostConfig is what the specs read back from `inspect`.
type hostConfig struct {
	ReadonlyRootfs bool
	CapDrop        []string
	SecurityOpt    []string
	PidsLimit      int64
	NetworkMode    string
}

var _ = Describe("Container adapter", Label("container"), Ordered, func() {
	var (
		ctx     context.Context
		engine  string
		runID   string
		sfx     string // makes this run's container names unique on the engine
		core    *coreStub
		rt      *ar.Container
		argvLog *syncBuffer
	)
	suiteEnv := map[string]string{secretName: secretValue}
	lookup := func(n string) (string, bool) { v, ok := suiteEnv[n]; return v, ok }

	newAdapter := func() *ar.Container {
		GinkgoHelper()
		c, err := ar.NewContainer(ctx, ar.ContainerOptions{
			Engine: engine, RunID: runID, Allowlist: ar.AllowEnv(secretName), LookupEnv: lookup,
			Readiness: core.Readiness,
			Logger: slog.New(slog.NewJSONHandler(io.MultiWriter(argvLog, GinkgoWriter),
				&slog.HandlerOptions{Level: slog.LevelDebug})),
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		return c
	}

	BeforeAll(func() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), 2*time.Minute)
		DeferCleanup(cancel)
		if os.Getenv("CONTAINERS_CONF") == "" {
			conf, err := filepath.Abs("../.ci/containers.conf")
			Expect(err).NotTo(HaveOccurred())
			Expect(conf).To(BeAnExistingFile())
			GinkgoT().Setenv("CONTAINERS_CONF", conf) // inherited by every engine command
		}
		engine = requireEngine(ctx)
		AddReportEntry("engine", engine)
		importTestImage(engine)
		runID = fmt.Sprintf("test-%d-%d", os.Getpid(), time.Now().UnixNano())
		sfx = strconv.FormatInt(time.Now().UnixNano()%(36*36*36*36), 36)
		DeferCleanup(func() {
			out, err := engineCmd(engine, "ps", "-a", "--filter", "label="+ar.LabelRun+"="+runID, "--format", "{{.Names}}")
			Expect(err).NotTo(HaveOccurred())
			for _, name := range strings.Fields(out) {
				_, _ = engineCmd(engine, "rm", "-f", name)
			}
			_, err = engineCmd(engine, "rmi", "-f", testImage)
			Expect(err).NotTo(HaveOccurred())
		})
	})

	BeforeEach(func() {
		checkNoLeaks()
		core = newCoreStub()
		argvLog = &syncBuffer{}
		rt = newAdapter()
	})

	spec := func(id string, args ...string) ar.UnitSpec {
		return ar.UnitSpec{
			ID: ar.UnitID(id + "-" + sfx), Image: testImage, Command: "/testdaemon", Args: args,
			CoreURL: core.URL(), DeviceID: deviceOf(ar.UnitID(id + "-" + sfx)),
		}
	}
	// launch provisions and starts s, and removes its container when the spec ends.
	launch := func(c *ar.Container, s ar.UnitSpec) {
		GinkgoHelper()
		id, err := c.Provision(ctx, s)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = c.Remove(context.Background(), id) })
		Expect(c.Start(ctx, id)).To(Succeed())
	}
	inspect := func(id ar.UnitID, format string) string {
		GinkgoHelper()
		out, err := engineCmd(engine, "inspect", "--format", format, ar.ContainerName(id))
		Expect(err).NotTo(HaveOccurred())
		return strings.TrimSpace(out)
	}

	It("creates a hardened container that reaches the suite on loopback, keeps the secret out of argv and logs, and stops", func() {
		core.Refuse(true)
		s := spec("hardened", "-term", "exit:0", "-dial", "-print-env", secretName, "-stderr", "to stderr",
			"-print-cwd", "-touch", "in-workspace", "-touch", "/on-rootfs", "-touch", "/tmp/on-tmpfs")
		s.SecretEnv = []string{secretName}
		s.Workspace = GinkgoT().TempDir()
		id, err := rt.Provision(ctx, s)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = rt.Remove(context.Background(), id) })
		Expect(healthOf(rt, id)()).To(Equal(ar.Provisioned))

		var hc hostConfig
		Expect(json.Unmarshal([]byte(inspect(id, "{{json .HostConfig}}")), &hc)).To(Succeed())
		Expect(hc.ReadonlyRootfs).To(BeTrue())
		// podman expands ALL into the capabilities it would otherwise grant.
		Expect(hc.CapDrop).To(ContainElements("CAP_CHOWN", "CAP_NET_RAW", "CAP_SETUID", "CAP_SYS_CHROOT"))
		Expect(hc.SecurityOpt).To(ContainElement("no-new-privileges"))
		Expect(hc.PidsLimit).To(Equal(int64(512)))
		Expect(hc.NetworkMode).To(Equal("host"))
		Expect(inspect(id, "{{json .Config.Labels}}")).To(And(
			ContainSubstring(`"io.wirecheck.unit":"`+string(id)+`"`), ContainSubstring(`"io.wirecheck.run":"`+runID+`"`)))

		Expect(rt.Start(ctx, id)).To(Succeed())
		Expect(rt.Start(ctx, id)).To(MatchError(ar.ErrAlreadyRunning))
		Eventually(logsOf(rt, id)).Should(ContainElement(ContainSubstring(" ready pid=")))
		st, err := rt.Health(ctx, id)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Health).To(Equal(ar.Starting), "running, but Core has not heard from it")
		Expect(st.PID).To(BeNumerically(">", 0))

		// What the kernel enforces on the daemon's process, seen from the host.
		status := procFile(st.PID, "status")
		Expect(status).To(MatchRegexp(`(?m)^CapEff:\s+0+$`))
		Expect(status).To(MatchRegexp(`(?m)^CapBnd:\s+0+$`))
		Expect(status).To(MatchRegexp(`(?m)^NoNewPrivs:\s+1$`))
		Expect(procFile(st.PID, "cmdline")).NotTo(ContainSubstring(secretValue))
		Expect(procFile(st.PID, "environ")).To(ContainSubstring(secretName+"="+secretValue+"\x00"), "it did reach the daemon")
		Expect(argvLog.String()).To(ContainSubstring(`"-e","`+secretName+`"`), "passed by name")
		Expect(argvLog.String()).NotTo(ContainSubstring(secretValue))

		core.Refuse(false)
		Eventually(healthOf(rt, id)).Should(Equal(ar.Connected))
		// Core answers before the daemon prints that it dialed.
		Eventually(logsOf(rt, id)).Should(ContainElement(HaveSuffix(" dialed core")))

		lines, err := rt.Logs(ctx, id, ar.AllLines)
		Expect(err).NotTo(HaveOccurred())
		Expect(lines).To(HaveEach(MatchRegexp(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d`)), "engine timestamps")
		Expect(lines).To(ContainElements(HaveSuffix(" "+secretName+"="+ar.Redacted), HaveSuffix(" to stderr"),
			HaveSuffix(" dialed core")))
		Expect(strings.Join(lines, "\n")).NotTo(ContainSubstring(secretValue))
		Expect(rt.Logs(ctx, id, 2)).To(HaveLen(2))
		Expect(lines).To(ContainElements(HaveSuffix(" cwd="+ar.WorkspaceMount), HaveSuffix(" touched in-workspace"),
			HaveSuffix(" touch /on-rootfs: open /on-rootfs: read-only file system"), HaveSuffix(" touched /tmp/on-tmpfs")),
			"read-only root, writable /tmp and workspace")
		Expect(filepath.Join(s.Workspace, "in-workspace")).To(BeAnExistingFile())

		Expect(rt.Stop(ctx, id, 5*time.Second)).To(Succeed())
		st, err = rt.Health(ctx, id)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Health).To(Equal(ar.Stopped))
		Expect(st.Exit.Code).To(Equal(0))
		Expect(st.Exit.At).To(BeTemporally("~", time.Now(), time.Minute))
		Expect(rt.Stop(ctx, id, time.Second)).To(Succeed(), "stopping a stopped unit is not an error")
	})

	It("kills with a signal and records the exit code the engine reports", func() {
		s := spec("killed", "-term", "exit:7")
		launch(rt, s)
		Eventually(logsOf(rt, s.ID)).Should(ContainElement(ContainSubstring(" ready pid=")))
		Expect(rt.Kill(ctx, s.ID, syscall.SIGTERM)).To(Succeed())
		ex, err := rt.Wait(ctx, s.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(ex.Code).To(Equal(7))
		Expect(healthOf(rt, s.ID)()).To(Equal(ar.Exited), "Kill is not Stop")
		Expect(rt.Kill(ctx, s.ID, syscall.SIGTERM)).To(MatchError(ar.ErrNotRunning))

		Expect(rt.Start(ctx, s.ID)).To(Succeed())
		Expect(rt.Kill(ctx, s.ID, syscall.SIGKILL)).To(Succeed())
		ex, err = rt.Wait(ctx, s.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(ex.Code).To(Equal(128+int(syscall.SIGKILL)), "engines report a signal death as 128+n")
		Expect(ex.Signal).To(BeZero(), "and the adapter does not guess the signal from it")
	})

	It("pauses through the engine's freezer, or says precisely why it cannot", func() {
		s := spec("frozen", "-term", "exit:0")
		launch(rt, s)
		err := rt.Pause(ctx, s.ID)
		if err != nil {
			var un *ar.UnsupportedError
			Expect(errors.As(err, &un)).To(BeTrue(), "a failed pause must be Unsupported, got %v", err)
			Expect(un.Op).To(Equal("pause"))
			Expect(un.Need).To(ContainSubstring("cgroup"))
			Expect(un.Detail).NotTo(BeEmpty())
			Expect(healthOf(rt, s.ID)()).To(Equal(ar.Starting))
			AddReportEntry("pause", "unsupported by this engine: "+un.Detail)
			return
		}
		AddReportEntry("pause", "supported")
		Expect(healthOf(rt, s.ID)()).To(Equal(ar.Paused))
		Expect(inspect(s.ID, "{{.State.Status}}")).To(Equal("paused"))
		Expect(rt.Pause(ctx, s.ID)).To(Succeed())
		Expect(rt.Resume(ctx, s.ID)).To(Succeed())
		Expect(inspect(s.ID, "{{.State.Status}}")).To(Equal("running"))
		Expect(rt.Pause(ctx, s.ID)).To(Succeed())
		Expect(rt.Stop(ctx, s.ID, 5*time.Second)).To(Succeed(), "a paused container is unpaused, then stopped")
		Expect(healthOf(rt, s.ID)()).To(Equal(ar.Stopped))
	})

	It("lets a new adapter adopt running and stopped containers, skipping foreign and malformed ones", func() {
		running := spec("adoptee", "-term", "exit:0", "-dial", "-print-env", secretName)
		running.SecretEnv = []string{secretName}
		launch(rt, running)
		stopped := spec("stopped-one", "-term", "exit:0")
		launch(rt, stopped)
		Eventually(logsOf(rt, stopped.ID)).Should(ContainElement(ContainSubstring(" ready pid=")))
		Expect(rt.Stop(ctx, stopped.ID, 5*time.Second)).To(Succeed())
		foreign, malformed := "wirecheck-foreign-"+sfx, "wirecheck-malformed-"+sfx
		for name, labels := range map[string][]string{
			foreign:   {ar.LabelManaged + "=true", ar.LabelUnit + "=foreign-" + sfx, ar.LabelRun + "=another-run"},
			malformed: {ar.LabelManaged + "=true", ar.LabelRun + "=" + runID},
		} {
			args := []string{"create", "--name", name}
			for _, l := range labels {
				args = append(args, "--label", l)
			}
			_, err := engineCmd(engine, append(args, testImage)...)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(engineCmd, engine, "rm", "-f", name)
		}
		Eventually(healthOf(rt, running.ID)).Should(Equal(ar.Connected))

		next := newAdapter() // a restarted supervisor: knows nothing yet
		Expect(second(next.Health(ctx, running.ID))).To(MatchError(ar.ErrNotFound))
		rec, err := next.Recover(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(rec).To(BeAssignableToTypeOf(ar.Adopted{}))
		adopted := rec.(ar.Adopted)
		Expect(adopted.IDs).To(Equal([]ar.UnitID{running.ID, stopped.ID}))
		Expect(adopted.Skipped).To(ContainElements( // the engine may hold leftovers of other runs too
			ar.Skipped{Name: foreign, Reason: `foreign: belongs to run "another-run", not "` + runID + `"`},
			ar.Skipped{Name: malformed, Reason: "malformed: no " + ar.LabelUnit + " label"},
		))
		again, err := next.Recover(ctx)
		Expect(err).NotTo(HaveOccurred())
		// Idempotent for what this spec made; containers of other runs (another package's tests
		// share the engine) may come and go between the two calls.
		Expect(ours(again.(ar.Adopted), sfx)).To(Equal(ours(adopted, sfx)), "recover is idempotent")

		Expect(healthOf(next, running.ID)()).To(Equal(ar.Connected))
		st, err := next.Health(ctx, stopped.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Health).To(Equal(ar.Exited), "the stop was asked by the previous supervisor, which no label records")
		Expect(st.Exit.Code).To(Equal(0))
		Expect(next.Logs(ctx, running.ID, ar.AllLines)).To(ContainElement(HaveSuffix(" "+secretName+"="+ar.Redacted)),
			"the secret-env label lets the new adapter redact too")

		Expect(next.Stop(ctx, running.ID, 5*time.Second)).To(Succeed())
		Expect(healthOf(next, running.ID)()).To(Equal(ar.Stopped))
		third := newAdapter()
		rec, err = third.Recover(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(rec.(ar.Adopted).IDs).To(Equal([]ar.UnitID{running.ID, stopped.ID}), "stopped containers are still managed")
		Expect(third.Start(ctx, stopped.ID)).To(Succeed())
		Expect(healthOf(third, stopped.ID)()).To(Equal(ar.Starting))
		Expect(third.Remove(ctx, stopped.ID)).To(Succeed())
	})

	It("restarts the container, the engine keeping the logs of both runs", func() {
		s := spec("again", "-print", "hello", "-term", "exit:0")
		launch(rt, s)
		st, err := rt.Health(ctx, s.ID)
		Expect(err).NotTo(HaveOccurred())
		Eventually(logsOf(rt, s.ID)).Should(ContainElement(ContainSubstring(" ready pid=")))
		Expect(rt.Restart(ctx, s.ID, 5*time.Second)).To(Succeed())
		st2, err := rt.Health(ctx, s.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(st2.Health).To(Equal(ar.Starting))
		Expect(st2.PID).NotTo(Equal(st.PID))
		Eventually(func() []string {
			return filterSuffix(logsOf(rt, s.ID)(), " hello")
		}).Should(HaveLen(2))
	})

	It("removes containers, refuses what it cannot run, and answers NotFound/NotRunning honestly", func() {
		s := spec("idle")
		id, err := rt.Provision(ctx, s)
		Expect(err).NotTo(HaveOccurred())
		Expect(second(rt.Wait(ctx, id))).To(MatchError(ar.ErrNotRunning))
		Expect(rt.Kill(ctx, id, syscall.SIGTERM)).To(MatchError(ar.ErrNotRunning))
		Expect(rt.Pause(ctx, id)).To(MatchError(ar.ErrNotRunning))
		Expect(rt.Kill(ctx, id, syscall.SIGSTOP)).To(MatchError(ar.ErrUnsupported))
		Expect(rt.Remove(ctx, id)).To(Succeed())
		_, err = engineCmd(engine, "inspect", ar.ContainerName(id))
		Expect(err).To(HaveOccurred(), "the container is gone")
		Expect(second(rt.Health(ctx, id))).To(MatchError(ar.ErrNotFound))
		Expect(rt.Start(ctx, "nope")).To(MatchError(ar.ErrNotFound))

		noImage := spec("no-image")
		noImage.Image = ""
		_, err = rt.Provision(ctx, noImage)
		var se *ar.SpecError
		Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
		Expect(se.Field).To(Equal("Image"))

		greedy := spec("greedy", "${HOME}")
		greedy.SecretEnv = []string{"OTHER_SECRET"}
		_, err = rt.Provision(ctx, greedy)
		var denied *ar.DisallowedEnvError
		Expect(errors.As(err, &denied)).To(BeTrue(), "got %v", err)
		Expect(denied.Names).To(Equal([]string{"HOME", "OTHER_SECRET"}))
		_, err = engineCmd(engine, "inspect", ar.ContainerName(greedy.ID))
		Expect(err).To(HaveOccurred(), "a refused spec creates nothing")
		Expect(rt.List(ctx)).To(BeEmpty())
	})

	It("removes the containers of a supervisor that is gone, and only those", func() {
		self, err := ar.Self()
		Expect(err).NotTo(HaveOccurred())
		s := spec("owned")
		launch(rt, s)
		Expect(inspect(s.ID, `{{index .Config.Labels "`+ar.LabelOwner+`"}}`)).To(Equal(self.String()), "the adapter stamps its process")

		killed := exec.Command("true") // a supervisor that ended without removing its containers
		Expect(killed.Run()).To(Succeed())
		orphan, reused, rebooted := "wirecheck-orphan-"+sfx, "wirecheck-reused-"+sfx, "wirecheck-rebooted-"+sfx
		alive, remote, malformed := "wirecheck-alive-"+sfx, "wirecheck-remote-"+sfx, "wirecheck-badowner-"+sfx
		owners := map[string]string{
			orphan:    ar.Owner{Host: self.Host, Boot: self.Boot, PID: killed.Process.Pid, StartTicks: 1}.String(),
			reused:    ar.Owner{Host: self.Host, Boot: self.Boot, PID: self.PID, StartTicks: self.StartTicks + 1}.String(),
			rebooted:  ar.Owner{Host: self.Host, Boot: "an-earlier-boot", PID: self.PID, StartTicks: self.StartTicks}.String(),
			alive:     self.String(), // another adapter of a suite still running
			remote:    ar.Owner{Host: "another-host", Boot: "b", PID: 1, StartTicks: 1}.String(),
			malformed: "not-an-owner",
		}
		for name, owner := range owners {
			_, err := engineCmd(engine, "run", "-d", "--name", name, "--label", ar.LabelManaged+"=true",
				"--label", ar.LabelUnit+"="+name, "--label", ar.LabelRun+"="+runID, "--label", ar.LabelOwner+"="+owner,
				testImage, "/testdaemon", "-term", "exit:0")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(engineCmd, engine, "rm", "-f", name)
		}

		removed, err := rt.ReapOrphans(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(filterSuffix(removed, sfx)).To(ConsistOf(orphan, reused, rebooted))
		out, err := engineCmd(engine, "ps", "-a", "--filter", "label="+ar.LabelRun+"="+runID, "--format", "{{.Names}}")
		Expect(err).NotTo(HaveOccurred())
		Expect(filterSuffix(strings.Fields(out), sfx)).To(ConsistOf(ar.ContainerName(s.ID), alive, remote, malformed))
		Expect(argvLog.String()).To(ContainSubstring("unreadable owner label"))
	})
})

func filterSuffix(lines []string, suffix string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasSuffix(l, suffix) {
			out = append(out, l)
		}
	}
	return out
}

// ours keeps the part of a recovery that concerns this spec's containers (their names end in sfx).
func ours(a ar.Adopted, sfx string) ar.Adopted {
	out := ar.Adopted{IDs: a.IDs}
	for _, sk := range a.Skipped {
		if strings.HasSuffix(sk.Name, sfx) {
			out.Skipped = append(out.Skipped, sk)
		}
	}
	return out
}
