package scenarios

import (
	"fmt"
	"strings"
	"time"
)

// Verdict is the outcome of running one scenario against one implementation.
type Verdict string

const (
	Pass Verdict = "pass"
	// Fail: the implementation broke the contract.
	Fail Verdict = "fail"
	// Inconclusive: the effect is unknown by the spec's own rule (a deadline passed after dispatch).
	Inconclusive Verdict = "inconclusive"
	// NotApplicable: the Runtime does not declare a capability the scenario requires.
	NotApplicable Verdict = "not_applicable"
	// HarnessError: the suite or the machine failed; never blamed on the implementation.
	HarnessError Verdict = "harness_error"
)

// Result is the verdict of one scenario played by one scripted peer.
type Result struct {
	Scenario   string
	Title      string
	Spec       []string
	Labels     []string
	Played     Side // the side the scripted peer played: "core" (testing a Runtime) or "runtime"
	Verdict    Verdict
	Failure    *Failure // set unless Pass
	Transcript []Exchange
	Seed       string
	Duration   time.Duration
	// Started is the wall clock when the scenario started: Transcript's At, and Duration, count
	// from it.
	Started time.Time
	// Profile is what the Runtime declared for the scenarios' kind in its latest heartbeat, as
	// ReadHeartbeat reads it (unknown, with its Problem, if that heartbeat was invalid; the zero
	// Profile if none came).
	Profile Profile
	// Daemons are the Runtime processes the scenario launched, in order (none in process).
	Daemons []Daemon
}

// Daemon is what one Runtime process launched for a scenario left behind.
type Daemon struct {
	Exit string // how it ended ("exit code 0", "killed by signal 9 (killed)"); "" if it did not
	// Code is its exit code; -1 when a signal ended it or it did not end.
	Code int
	// Killed: it did not end on its own or on SIGTERM within the grace period.
	Killed bool
	// LeftBehind names processes of its group that outlived it and were killed ("" if none).
	LeftBehind string
	Output     []string // the last lines of its stdout and stderr
}

// Failure pinpoints why a scenario did not pass.
type Failure struct {
	Step     int    // 1-based step index (0: before the first step, e.g. the connection)
	StepDesc string // the step in words
	Pos      Pos    // file:line of the step
	Message  string // one line: what happened, naming the frame, member and rule
	Expected any    // the expected frame, rendered with the bindings in force
	Actual   any    // the frame received
	Diff     string // line diff of the frames as indented JSON, -expected +actual
	Bindings map[string]string
	Missing  []string // for NotApplicable: the capabilities not declared
	// Cause is the root cause in plain words, the same for every scenario that fails for the same
	// reason (e.g. "the daemon sends no Bearer header"), so reports can group failures by it. Empty
	// when the failure is particular to its scenario.
	Cause string
}

// Direction of a transcript entry.
type Direction string

const (
	CoreToRuntime Direction = "core→runtime"
	RuntimeToCore Direction = "runtime→core"
	Event         Direction = "event" // connect, close, reject, clock moves
)

// Exchange is one entry of a run's transcript: a frame on the wire or a transport event.
type Exchange struct {
	At    time.Duration // since the run started
	Dir   Direction
	Step  int    // the step it belongs to (0 when none)
	Type  string // message type, or the event name
	Frame string // the raw frame (credentials never appear: they travel only in headers)
	Note  string
}

// String renders the result as a human report, the way a failing test prints it.
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s, scripted %s] %s (%v, seed %s)", r.Scenario, r.Verdict, r.Played, r.Title, r.Duration.Round(time.Microsecond), r.Seed)
	if f := r.Failure; f != nil {
		switch {
		case f.Step == 0 && f.Pos.File != "":
			fmt.Fprintf(&b, "\n  connection (before the first step) at %s: %s", f.Pos, f.Message)
		case f.Step == 0:
			fmt.Fprintf(&b, "\n  connection (before the first step): %s", f.Message)
		default:
			fmt.Fprintf(&b, "\n  step %d (%s) at %s: %s", f.Step, f.StepDesc, f.Pos, f.Message)
		}
		if f.Diff != "" {
			fmt.Fprintf(&b, "\n  frame (-expected +actual):\n%s", indent(f.Diff, "    "))
		}
		if len(f.Missing) > 0 {
			fmt.Fprintf(&b, "\n  missing capabilities: %s", strings.Join(f.Missing, ", "))
		}
		if len(f.Bindings) > 0 {
			keys := sortedKeys(f.Bindings)
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = k + "=" + f.Bindings[k]
			}
			fmt.Fprintf(&b, "\n  bindings: %s", strings.Join(parts, ", "))
		}
		if len(r.Spec) > 0 {
			fmt.Fprintf(&b, "\n  spec: %s", strings.Join(r.Spec, ", "))
		}
	}
	return b.String()
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// Reverse returns the opposite frame direction.
func (d Direction) Reverse() Direction {
	switch d {
	case CoreToRuntime:
		return RuntimeToCore
	case RuntimeToCore:
		return CoreToRuntime
	}
	return d
}
