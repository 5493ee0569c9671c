package agentruntime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Labels the container adapter stamps on every container it creates: the durable record that
// Recover reads back.
const (
	LabelManaged   = "io.wirecheck.managed"    // "true"
	LabelUnit      = "io.wirecheck.unit"       // the UnitID
	LabelRun       = "io.wirecheck.run"        // the adapter's RunID, when set
	LabelSecretEnv = "io.wirecheck.secret-env" // SecretEnv names, comma-separated (never values)
	// LabelOwner (owner.go): the supervisor process, for ReapOrphans.
)

// containerPrefix starts the name of every container the adapter creates.
const containerPrefix = "wirecheck-"

// ContainerName is the engine's name for unit id's container.
func ContainerName(id UnitID) string { return containerPrefix + string(id) }

// WorkspaceMount is where UnitSpec.Workspace is mounted inside a container.
const WorkspaceMount = "/workspace"

// DetectEngine finds a usable container engine: podman, then docker, on PATH, whose `info`
// succeeds (a docker client with no daemon behind it does not count). It returns the binary path.
func DetectEngine(ctx context.Context) (string, error) {
	var tried []string
	for _, name := range []string{"podman", "docker"} {
		path, err := exec.LookPath(name)
		if err != nil {
			tried = append(tried, name+": not on PATH")
			continue
		}
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, path, "info")
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			tried = append(tried, fmt.Sprintf("%s: `%s info` failed: %s", name, path,
				firstLine(stderr.String(), err)))
			continue
		}
		return path, nil
	}
	return "", fmt.Errorf("agentruntime: no usable container engine (%s)", strings.Join(tried, "; "))
}

func firstLine(s string, fallback error) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" && fallback != nil {
		return fallback.Error()
	}
	return s
}

// createArgs is the `create` argv (after the engine binary) for a validated, prepared spec.
// Secrets appear as value-less `-e NAME`: the engine copies each value from its own environment,
// so no value is ever in argv.
func createArgs(spec UnitSpec, ln launch, runID, owner string) []string {
	labels := map[string]string{LabelManaged: "true", LabelUnit: string(spec.ID)}
	if runID != "" {
		labels[LabelRun] = runID
	}
	if owner != "" {
		labels[LabelOwner] = owner
	}
	if len(spec.SecretEnv) > 0 {
		labels[LabelSecretEnv] = strings.Join(spec.SecretEnv, ",")
	}
	for k, v := range spec.Labels {
		labels[k] = v
	}
	args := []string{"create", "--name", ContainerName(spec.ID)}
	for _, k := range sortedKeys(labels) {
		args = append(args, "--label", k+"="+labels[k])
	}
	// The daemon dials the scripted Core, which listens on the suite's loopback.
	args = append(args, "--network", "host")
	args = append(args, hardeningOf(spec).flags()...)
	if spec.Workspace != "" {
		args = append(args, "-v", spec.Workspace+":"+WorkspaceMount, "-w", WorkspaceMount)
	}
	for _, kv := range ln.env {
		args = append(args, "-e", kv)
	}
	for _, n := range spec.SecretEnv {
		args = append(args, "-e", n)
	}
	args = append(args, spec.Image)
	if ln.command != "" {
		args = append(args, ln.command)
	}
	return append(args, ln.args...)
}

// engineEnv is the environment of an engine command: the suite's, with extra NAME=value pairs
// replacing any same-named variables.
func engineEnv(extra []string) []string {
	if len(extra) == 0 {
		return nil // inherit
	}
	names := map[string]bool{}
	for _, kv := range extra {
		names[kv[:strings.IndexByte(kv, '=')]] = true
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		i := strings.IndexByte(kv, '=')
		return i > 0 && names[kv[:i]]
	})
	return append(env, extra...)
}

// stopSeconds rounds a grace period up to the engine's whole seconds.
func stopSeconds(grace time.Duration) string {
	if grace <= 0 {
		return "0"
	}
	return strconv.Itoa(int(math.Ceil(grace.Seconds())))
}

// engineState is the part of `inspect` .State the adapter reads (docker and podman agree on it).
type engineState struct {
	Status     string
	Running    bool
	Paused     bool
	OOMKilled  bool
	Dead       bool
	Pid        int
	ExitCode   int
	FinishedAt string
}

// health maps the engine's state to a Health and, for ended containers, an Exit. stopped says the
// suite asked for the stop; without that the end reads as Exited.
func (s engineState) health(stopped bool) (Health, *Exit, error) {
	switch s.Status {
	case "created", "configured", "initialized":
		return Provisioned, nil, nil
	case "running", "restarting":
		return Starting, nil, nil
	case "paused":
		return Paused, nil, nil
	case "exited", "stopped", "dead", "removing":
		at, _ := time.Parse(time.RFC3339Nano, s.FinishedAt)
		ex := &Exit{Code: s.ExitCode, At: at, OOMKilled: s.OOMKilled}
		if stopped {
			return Stopped, ex, nil
		}
		return Exited, ex, nil
	}
	return 0, nil, fmt.Errorf("agentruntime: unknown container status %q", s.Status)
}

func parseEngineState(out string) (engineState, error) {
	var s engineState
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &s); err != nil {
		return engineState{}, fmt.Errorf("agentruntime: cannot read container state %q: %w", out, err)
	}
	return s, nil
}

// isNoSuchContainer recognises the engines' "it does not exist" answer.
func isNoSuchContainer(err error) bool {
	var ee *EngineError
	if !errors.As(err, &ee) {
		return false
	}
	s := strings.ToLower(ee.Stderr)
	return strings.Contains(s, "no such container") || strings.Contains(s, "no such object")
}

// pauseUnsupported turns an engine's refusal to pause into an UnsupportedError saying what would
// have to change; other failures are returned as they are.
func pauseUnsupported(backend string, err error) error {
	var ee *EngineError
	if !errors.As(err, &ee) {
		return err
	}
	s := strings.ToLower(ee.Stderr)
	for _, hint := range []string{"freezer", "rootless", "cgroupv1", "cgroup v1", "cgroups v1", "not supported"} {
		if strings.Contains(s, hint) {
			return &UnsupportedError{Op: "pause", Backend: backend,
				Need: "the engine must be able to freeze the container's cgroup: cgroup v2, or cgroup v1 " +
					"with the freezer controller, and for rootless podman cgroup v2 with the systemd " +
					"cgroup manager",
				Detail: strings.TrimSpace(ee.Stderr)}
		}
	}
	return err
}

// mergeLogStreams merges the engine's stdout and stderr logs (each line starting with an
// RFC 3339 timestamp) into one list in time order, keeping each stream's own order. A line whose
// timestamp does not parse sorts with its predecessor in the same stream.
func mergeLogStreams(stdout, stderr string) []string {
	a, b := splitLines(stdout), splitLines(stderr)
	ta, tb := stamps(a), stamps(b)
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j >= len(b) || (i < len(a) && !tb[j].Before(ta[i])) {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return out
}

func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	return lines
}

func stamps(lines []string) []time.Time {
	out := make([]time.Time, len(lines))
	var prev time.Time
	for i, l := range lines {
		ts, _, _ := strings.Cut(l, " ")
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			prev = t
		}
		out[i] = prev
	}
	return out
}

// recoveredContainer is what Recover reads back from one container's labels.
type recoveredContainer struct {
	id      UnitID
	secrets []string
}

// readLabels checks a labelled container: its unit label must be a valid UnitID, its name must be
// the one the adapter gives that unit, and when runID is set its run label must match. The reason
// is empty when the container is adoptable.
func readLabels(name string, labels map[string]string, runID string) (recoveredContainer, string) {
	name = strings.TrimPrefix(name, "/") // docker prefixes names with a slash
	unit, ok := labels[LabelUnit]
	switch {
	case !ok:
		return recoveredContainer{}, "malformed: no " + LabelUnit + " label"
	case !unitIDPattern.MatchString(unit):
		return recoveredContainer{}, fmt.Sprintf("malformed: %s=%q is not a unit ID", LabelUnit, unit)
	case name != ContainerName(UnitID(unit)):
		return recoveredContainer{}, fmt.Sprintf("malformed: named %q, but unit %q would be %q",
			name, unit, ContainerName(UnitID(unit)))
	case runID != "" && labels[LabelRun] != runID:
		return recoveredContainer{}, fmt.Sprintf("foreign: belongs to run %q, not %q", labels[LabelRun], runID)
	}
	rc := recoveredContainer{id: UnitID(unit)}
	if s := labels[LabelSecretEnv]; s != "" {
		rc.secrets = strings.Split(s, ",")
	}
	return rc, ""
}

// engineName is the engine's short name for messages: "podman", "docker".
func engineName(path string) string { return filepath.Base(path) }
