package agentruntime

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestTailLines(t *testing.T) {
	lines := []string{"a", "b", "c"}
	for _, tc := range []struct {
		n    int
		want []string
	}{{-1, lines}, {0, []string{}}, {2, []string{"b", "c"}}, {3, lines}, {9, lines}} {
		if d := cmp.Diff(tc.want, tailLines(lines, tc.n)); d != "" {
			t.Errorf("tailLines(%d) (-want +got):\n%s", tc.n, d)
		}
	}
	if got := tailLines(nil, 5); len(got) != 0 {
		t.Errorf("tailLines(nil, 5) = %q", got)
	}
}

func TestLogTailEvictsOldest(t *testing.T) {
	tl := newLogTail(3)
	tl.Append("1", "2")
	tl.Append("3", "4", "5")
	if d := cmp.Diff([]string{"3", "4", "5"}, tl.Lines(AllLines)); d != "" {
		t.Errorf("ring (-want +got):\n%s", d)
	}
	tl.Append("6")
	if d := cmp.Diff([]string{"5", "6"}, tl.Lines(2)); d != "" {
		t.Errorf("ring tail (-want +got):\n%s", d)
	}
}

func TestPumpLinesSplitsRedactsAndKeepsAnUnterminatedLine(t *testing.T) {
	long := strings.Repeat("x", maxLineBytes+10)
	src := "one\r\ntoken=hunter2-long and hunter2\n\n" + long + "\nlast"
	var got []string
	pumpLines(strings.NewReader(src), newRedactor([]string{"hunter2", "hunter2-long", ""}),
		func(l string) { got = append(got, l) })
	want := []string{"one", "token=" + Redacted + " and " + Redacted, "", long[:maxLineBytes], long[maxLineBytes:], "last"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
}

func TestCreateArgs(t *testing.T) {
	spec := UnitSpec{
		ID: "rt-1", Image: "img:1", Command: "/daemon", Args: []string{"--core={core_url}", "--device={device_id}"},
		Env: map[string]string{"LOG": "debug"}, SecretEnv: []string{"TOKEN", "KEY"},
		CoreURL: "http://127.0.0.1:9/", DeviceID: "dev-1", Labels: map[string]string{"team": "x"},
		Workspace: "/tmp/ws",
	}
	lookup := func(n string) (string, bool) { return "value-of-" + n, true }
	ln, err := prepareLaunch(spec, lookup)
	if err != nil {
		t.Fatal(err)
	}
	got := createArgs(spec, ln, "run-7", "host/boot/42/7")
	want := []string{"create", "--name", "wirecheck-rt-1",
		"--label", "io.wirecheck.managed=true", "--label", "io.wirecheck.owner=host/boot/42/7", "--label", "io.wirecheck.run=run-7",
		"--label", "io.wirecheck.secret-env=TOKEN,KEY", "--label", "io.wirecheck.unit=rt-1", "--label", "team=x",
		"--network", "host",
		"--cap-drop=ALL", "--security-opt=no-new-privileges", "--read-only", "--tmpfs", "/tmp", "--pids-limit", "512",
		"-v", "/tmp/ws:/workspace", "-w", "/workspace",
		"-e", "LOG=debug", "-e", "WIRECHECK_CORE_URL=http://127.0.0.1:9/", "-e", "WIRECHECK_DEVICE_ID=dev-1",
		"-e", "TOKEN", "-e", "KEY",
		"img:1", "/daemon", "--core=http://127.0.0.1:9/", "--device=dev-1"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("create argv (-want +got):\n%s", d)
	}
	if s := strings.Join(got, " "); strings.Contains(s, "value-of-") {
		t.Errorf("a secret value is in argv: %s", s)
	}
	if d := cmp.Diff([]string{"TOKEN=value-of-TOKEN", "KEY=value-of-KEY"}, ln.secrets); d != "" {
		t.Errorf("secrets for the engine's environment (-want +got):\n%s", d)
	}

	none := NoHardening()
	bare := UnitSpec{ID: "b", Image: "img", Hardening: &none}
	ln, _ = prepareLaunch(bare, lookup)
	want = []string{"create", "--name", "wirecheck-b", "--label", "io.wirecheck.managed=true",
		"--label", "io.wirecheck.unit=b", "--network", "host",
		"-e", "WIRECHECK_CORE_URL=", "-e", "WIRECHECK_DEVICE_ID=", "img"}
	if d := cmp.Diff(want, createArgs(bare, ln, "", "")); d != "" {
		t.Errorf("bare argv (-want +got):\n%s", d)
	}
}

func TestHardeningCeilingsAreOptIn(t *testing.T) {
	if d := cmp.Diff([]string{"--cap-drop=ALL", "--security-opt=no-new-privileges", "--read-only", "--tmpfs",
		"/tmp", "--pids-limit", "512"}, DefaultHardening().flags()); d != "" {
		t.Errorf("default (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"--memory", "256m", "--cpus", "0.5"},
		NoHardening().WithMemory("256m").WithCPUs("0.5").flags()); d != "" {
		t.Errorf("ceilings only (-want +got):\n%s", d)
	}
}

func TestEngineEnvReplacesSameNamedVariables(t *testing.T) {
	t.Setenv("TOKEN", "from-suite")
	env := engineEnv([]string{"TOKEN=for-daemon"})
	var tokens []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "TOKEN=") {
			tokens = append(tokens, kv)
		}
	}
	if d := cmp.Diff([]string{"TOKEN=for-daemon"}, tokens); d != "" {
		t.Errorf("TOKEN in the engine's env (-want +got):\n%s", d)
	}
	if engineEnv(nil) != nil {
		t.Error("no extra env should inherit (nil)")
	}
}

func TestStopSeconds(t *testing.T) {
	for grace, want := range map[time.Duration]string{0: "0", -time.Second: "0", time.Millisecond: "1",
		time.Second: "1", 1500 * time.Millisecond: "2"} {
		if got := stopSeconds(grace); got != want {
			t.Errorf("stopSeconds(%v) = %s, want %s", grace, got, want)
		}
	}
}

func TestEngineStateHealth(t *testing.T) {
	for _, tc := range []struct {
		status  string
		stopped bool
		want    Health
	}{
		{"created", false, Provisioned}, {"configured", false, Provisioned}, {"running", false, Starting},
		{"paused", false, Paused}, {"exited", false, Exited}, {"exited", true, Stopped}, {"stopped", false, Exited},
		{"dead", true, Stopped},
	} {
		h, ex, err := engineState{Status: tc.status, ExitCode: 3, FinishedAt: "2026-01-02T03:04:05.5Z"}.health(tc.stopped)
		if err != nil || h != tc.want {
			t.Errorf("%s stopped=%v: %v, %v; want %v", tc.status, tc.stopped, h, err, tc.want)
		}
		if (ex != nil) != (h == Exited || h == Stopped) {
			t.Errorf("%s: exit %v with health %v", tc.status, ex, h)
		}
		if ex != nil && (ex.Code != 3 || !ex.At.Equal(time.Date(2026, 1, 2, 3, 4, 5, 5e8, time.UTC))) {
			t.Errorf("%s: exit %+v", tc.status, ex)
		}
	}
	if _, _, err := (engineState{Status: "bogus"}).health(false); err == nil {
		t.Error("an unknown status must be an error")
	}
}

func TestMergeLogStreamsKeepsTimeAndStreamOrder(t *testing.T) {
	stdout := "2026-01-01T00:00:01Z a\n2026-01-01T00:00:03Z c\nno stamp d\n"
	stderr := "2026-01-01T00:00:02Z b\n2026-01-01T00:00:03Z c2\n2026-01-01T00:00:04Z e\n"
	want := []string{"2026-01-01T00:00:01Z a", "2026-01-01T00:00:02Z b", "2026-01-01T00:00:03Z c",
		"no stamp d", "2026-01-01T00:00:03Z c2", "2026-01-01T00:00:04Z e"}
	if d := cmp.Diff(want, mergeLogStreams(stdout, stderr)); d != "" {
		t.Errorf("merged (-want +got):\n%s", d)
	}
	if got := mergeLogStreams("", ""); len(got) != 0 {
		t.Errorf("empty: %q", got)
	}
}

func TestReadLabels(t *testing.T) {
	ok := map[string]string{LabelManaged: "true", LabelUnit: "u1", LabelRun: "r", LabelSecretEnv: "A,B"}
	rc, reason := readLabels("/wirecheck-u1", ok, "r")
	if reason != "" || rc.id != "u1" || !cmp.Equal(rc.secrets, []string{"A", "B"}) {
		t.Errorf("adoptable container: %+v %q", rc, reason)
	}
	for name, tc := range map[string]struct {
		name   string
		labels map[string]string
		run    string
		want   string
	}{
		"no unit":    {"wirecheck-x", map[string]string{LabelManaged: "true"}, "", "malformed: no io.wirecheck.unit label"},
		"bad unit":   {"wirecheck-X", map[string]string{LabelUnit: "X"}, "", `malformed: io.wirecheck.unit="X" is not a unit ID`},
		"renamed":    {"other", map[string]string{LabelUnit: "u1"}, "", `malformed: named "other", but unit "u1" would be "wirecheck-u1"`},
		"other run":  {"wirecheck-u1", ok, "mine", `foreign: belongs to run "r", not "mine"`},
		"no run lbl": {"wirecheck-u1", map[string]string{LabelUnit: "u1"}, "mine", `foreign: belongs to run "", not "mine"`},
	} {
		if _, got := readLabels(tc.name, tc.labels, tc.run); got != tc.want {
			t.Errorf("%s: reason %q, want %q", name, got, tc.want)
		}
	}
}

func TestPauseRefusalBecomesUnsupported(t *testing.T) {
	refusal := &EngineError{Args: []string{"podman", "pause", "c"}, ExitCode: 125,
		Stderr: "Error: pause is not supported for rootless containers when using cgroups v1\n"}
	err := pauseUnsupported("podman", refusal)
	var un *UnsupportedError
	if !errors.As(err, &un) || !errors.Is(err, ErrUnsupported) {
		t.Fatalf("got %v", err)
	}
	if un.Op != "pause" || un.Backend != "podman" || !strings.Contains(un.Need, "cgroup v2") ||
		!strings.Contains(un.Detail, "rootless") {
		t.Errorf("unsupported error: %+v", un)
	}
	other := &EngineError{Args: []string{"podman", "pause", "c"}, ExitCode: 125, Stderr: "Error: no such container c"}
	if err := pauseUnsupported("podman", other); err != other {
		t.Errorf("a different failure must pass through, got %v", err)
	}
}

func TestValidateSpec(t *testing.T) {
	allow := AllowEnv("S", "P")
	for name, tc := range map[string]struct {
		spec  UnitSpec
		field string
	}{
		"bad id":          {UnitSpec{ID: "Has Space"}, "ID"},
		"empty id":        {UnitSpec{}, "ID"},
		"secret twice":    {UnitSpec{ID: "a", SecretEnv: []string{"S", "S"}}, "SecretEnv"},
		"secret is plain": {UnitSpec{ID: "a", SecretEnv: []string{"S"}, Env: map[string]string{"S": "x"}}, "SecretEnv"},
		"secret in args":  {UnitSpec{ID: "a", SecretEnv: []string{"S"}, Args: []string{"--t=${S}"}}, "Args"},
		"reserved env":    {UnitSpec{ID: "a", Env: map[string]string{EnvCoreURL: "x"}}, "Env"},
		"bad env name":    {UnitSpec{ID: "a", Env: map[string]string{"1X": "x"}}, "Env"},
		"reserved label":  {UnitSpec{ID: "a", Labels: map[string]string{"io.wirecheck.unit": "b"}}, "Labels"},
	} {
		err := validateSpec(tc.spec, allow)
		var se *SpecError
		if !errors.As(err, &se) || se.Field != tc.field {
			t.Errorf("%s: got %v, want a SpecError on %s", name, err, tc.field)
		}
	}
	err := validateSpec(UnitSpec{ID: "a", Command: "${Z}", Env: map[string]string{"E": "${Y:-d} ${P}"},
		SecretEnv: []string{"S", "X"}}, allow)
	var de *DisallowedEnvError
	if !errors.As(err, &de) || !cmp.Equal(de.Names, []string{"X", "Y", "Z"}) {
		t.Errorf("offenders across Command, Env and SecretEnv: %v", err)
	}
}

func TestErrorsNameWhatToActOn(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{notFound("u"), `agentruntime: unit not found: "u"`},
		{&UnsupportedError{Op: "pause", Backend: "podman", Need: "cgroup v2", Detail: "no freezer"},
			"agentruntime: pause is unsupported by the podman backend: cgroup v2 (no freezer)"},
		{&EngineError{Args: []string{"podman", "start", "c"}, Stderr: "Error: boom\n", ExitCode: 125},
			"agentruntime: podman start c failed (exit 125): Error: boom"},
		{&SpawnError{ID: "u", Op: "start", Err: fmt.Errorf("no such file")}, `agentruntime: unit "u": start: no such file`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	if !errors.Is(alreadyRunning("u"), ErrAlreadyRunning) || !errors.Is(notRunning("u"), ErrNotRunning) {
		t.Error("unit errors must match their sentinels")
	}
}

func TestHealthNames(t *testing.T) {
	got := []string{Provisioned.String(), Starting.String(), Connected.String(), Paused.String(),
		Exited.String(), Stopped.String(), Health(0).String(), Health(42).String()}
	want := []string{"provisioned", "starting", "connected", "paused", "exited", "stopped", "unknown", "Health(42)"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if !Paused.Alive() || Exited.Alive() || Provisioned.Alive() {
		t.Error("Alive: Starting, Connected, Paused only")
	}
}

func TestOwnerRoundTripsAndIsGoneOnlyWhenProvablyEnded(t *testing.T) {
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseOwner(self.String())
	if err != nil || back != self {
		t.Fatalf("ParseOwner(%q) = %+v, %v; want %+v", self.String(), back, err, self)
	}
	if self.Gone(self) {
		t.Errorf("the running process is gone to itself")
	}
	child := exec.Command("true")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		owner Owner
		gone  bool
	}{
		{"a PID reused by another process", Owner{self.Host, self.Boot, self.PID, self.StartTicks + 1}, true},
		{"a process that exited", Owner{self.Host, self.Boot, child.Process.Pid, 1}, true},
		{"this host before a reboot", Owner{self.Host, "another-boot", self.PID, self.StartTicks}, true},
		{"another host", Owner{"elsewhere", "another-boot", 1, 1}, false},
	}
	for _, c := range cases {
		if got := c.owner.Gone(self); got != c.gone {
			t.Errorf("%s (%s): gone %v, want %v", c.name, c.owner, got, c.gone)
		}
	}
	for _, bad := range []string{"", "h/b/1", "h/b/0/1", "h/b/x/1", "h/b/1/-1", "/b/1/1", "h//1/1", "h/b/1/1/1"} {
		if _, err := ParseOwner(bad); err == nil {
			t.Errorf("ParseOwner(%q) took it", bad)
		}
	}
}

func FuzzParseOwner(f *testing.F) {
	f.Add("host/0b7c-boot/4242/99")
	f.Add("h/b/1/1/1")
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOwner(s)
		if err != nil {
			return
		}
		back, err := ParseOwner(o.String())
		if err != nil || back != o {
			t.Fatalf("%q read as %+v, which does not read back (%+v, %v)", s, o, back, err)
		}
	})
}
