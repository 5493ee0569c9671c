package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// A Pairing is one way the gate plays the catalog: a scripted peer against an implementation, or
// against the other scripted peer. The gate (package conformance) and `wirecheck run` play the
// same pairings through this one path.
type Pairing struct {
	Name   string   // how the gate's Describe and `wirecheck run` name it
	Labels []string // the gate labels its specs with these, beside the scenario's own
	// Covers reports whether the pairing tests what the scenario tests (a Runtime, a Core).
	Covers func(*scenarios.Scenario) bool
	// Skip says why a covered scenario is nevertheless left out ("": it is played).
	Skip func(*scenarios.Scenario) string
	// Play plays one scenario; a result that does not pass says why.
	Play func(ctx context.Context, sc *scenarios.Scenario, seed string) *scenarios.Result
	// Close releases what the pairing started (nil: nothing to release).
	Close func() error
}

// Pairings are the gate's pairings, in the order it plays them; binary is the wirecheck binary
// whose `runtime` command the child-process pairing runs (it need exist only once that pairing
// plays). Close each pairing that has a Close.
func Pairings(binary string) []Pairing {
	return []Pairing{SelfCheckPairing(), InProcessPairing(), ChildProcessPairing(binary), ReferenceCorePairing()}
}

// RealTimeBudget is the most virtual time a scenario may advance and still be played in real time
// against a daemon in another process; longer ones are left to the in-process run on the virtual
// clock.
const RealTimeBudget = time.Second

// SelfCheckPairing plays the scripted Core against the scripted Runtime: a scenario the two
// scripts disagree on is a broken scenario, found before any implementation is blamed.
func SelfCheckPairing() Pairing {
	return Pairing{
		Name: "self-check: scriptedcore ↔ scriptedruntime", Labels: []string{"self-check"},
		Covers: func(*scenarios.Scenario) bool { return true },
		Skip: func(sc *scenarios.Scenario) string {
			if a := sc.BootstrapAnswer; a != nil && (len(a.Unusable) > 0 || a.StalledUpgrades > 0) {
				return "the scripted Runtime bootstraps once: a daemon's reconnect loop, which the scenario tests, is not scripted"
			}
			if awaitsStall(sc) {
				return "the scripted Runtime sends each frame at its own step: it has no output to pile up before await_stall"
			}
			if multipliesUnread(sc) {
				return "a fault multiplies a frame the scripted Core reads once (a burst only a Core under test takes in): " +
					"whether the relay has it armed before the scripted Runtime sends is a race between the two scripts"
			}
			return ""
		},
		Play: func(ctx context.Context, sc *scenarios.Scenario, seed string) *scenarios.Result {
			core, rt := SelfCheck(ctx, sc, Options{Seed: seed})
			switch {
			case core.Verdict != scenarios.Pass:
				return core
			case rt == nil:
				return harnessError(sc, scenarios.SideRuntime, seed, "the scripted Runtime never ran")
			case rt.Verdict != scenarios.Pass && !OnlyTurnChecksNotApplicable(sc, rt):
				// Turn checks ask for Core's records, which the scripted Core does not keep; every wire
				// step was still played by both scripts, which is what the self-check proves.
				return rt
			}
			return core
		},
	}
}

// multipliesUnread reports whether a fault of a scenario duplicates a frame towards Core that no
// step reads as copies: only a Core under test takes the burst in (and a scenario for a Core
// says what it does with it in check steps the scripted Core skips).
func multipliesUnread(sc *scenarios.Scenario) bool {
	if sc.Tests.Covers(scenarios.SideRuntime) {
		return false
	}
	for _, st := range sc.Steps {
		if st.Kind != scenarios.StepFault {
			continue
		}
		if r, ok := faultRule(st.Fault); ok && r.Action.Kind == fault.ActDuplicate {
			return true
		}
	}
	return false
}

// InProcessPairing plays the scripted Core against the reference Runtime in process, on a
// virtual clock: the whole Runtime side of the catalog, long timers included, in seconds.
func InProcessPairing() Pairing {
	return Pairing{
		Name: "runtime: reference", Labels: []string{"runtime"},
		Covers: coversRuntime,
		Skip:   func(*scenarios.Scenario) string { return "" },
		Play: func(ctx context.Context, sc *scenarios.Scenario, seed string) *scenarios.Result {
			return PlayRuntime(ctx, sc, 0, ReferenceRuntime{}, Options{Seed: seed})
		},
	}
}

// childGrace is how long a child-process play's daemon has to exit after SIGTERM before it is
// killed and failed: far beyond what the reference needs, so only a daemon that does not exit
// meets it.
const childGrace = 15 * time.Second

// childStep bounds each read and wait of a child-process play in the gate. The reference answers
// in milliseconds, so the bound is met only by a harness or reference bug; the 3 s a third party's
// certification uses (scriptedcoreStep) was reached at a load average of 30, where the gate must
// still pass.
const childStep = 15 * time.Second

// ChildProcessName names the child-process pairing.
const ChildProcessName = "runtime: reference as a child process"

// ChildProcessPairing plays the scripted Core against `binary runtime` as a local process per
// scenario, in real time, through the same Target that `wirecheck certify --runtime-cmd` uses;
// beyond the scenario, the daemon must end the way the reference daemon promises (its exit
// code) and leave no process behind. A scenario that excludes capabilities the reference declares
// gets `wirecheck runtime --withhold` them: the reference's process with a narrower declaration.
func ChildProcessPairing(binary string) Pairing {
	var (
		mu      sync.Mutex
		targets = map[string]*Units{} // by the capabilities withheld, comma-separated
		plays   atomic.Int64          // numbers each play's device: the units of one target need distinct IDs
	)
	launcher := func(without []string) (*Units, error) {
		mu.Lock()
		defer mu.Unlock()
		key := strings.Join(without, ",")
		if t, ok := targets[key]; ok {
			return t, nil
		}
		cmd, what := binary+" runtime --server {core_url} --device {device_id}", "reference Runtime as a child process ("+binary+")"
		if key != "" {
			cmd += " --withhold " + key
			what = "reference Runtime without " + strings.Join(without, ", ") + " as a child process (" + binary + ")"
		}
		// The grace is what a daemon has to exit after SIGTERM: the reference exits at once, so a
		// longer one costs it nothing, while 2 s was reached by a daemon the kernel did not run
		// at a load average of 26 (make stress beside other work).
		opts := DaemonOptions{Grace: childGrace}
		// The daemon lays out a fresh environment per play under its temporary directory: where the
		// suite keeps its scratch files (the gate: in memory), so should the daemons it starts.
		if _, ok := os.LookupEnv("TMPDIR"); ok {
			opts.PassEnv = []string{"TMPDIR"}
		}
		t, err := Command(cmd, opts)
		if err != nil {
			return nil, err
		}
		t.What = what
		targets[key] = t
		return t, nil
	}
	return Pairing{
		Name: ChildProcessName, Labels: []string{"runtime", "process"},
		Covers: coversRuntime,
		Skip: func(sc *scenarios.Scenario) string {
			if total := TotalAdvance(sc); total > RealTimeBudget {
				return fmt.Sprintf("left to the in-process run: its steps advance the clock %v in total, more than the %v of real time a child-process run may take", total, RealTimeBudget)
			}
			return ""
		},
		Play: func(ctx context.Context, sc *scenarios.Scenario, seed string) *scenarios.Result {
			target, err := launcher((ReferenceRuntime{}).ForScenario(sc).(ReferenceRuntime).Without)
			if err != nil {
				return harnessError(sc, scenarios.SideCore, seed, err.Error())
			}
			r := PlayRuntime(ctx, sc, int(plays.Add(1)), target, Options{Seed: seed, Step: childStep})
			if r.Verdict == scenarios.Pass {
				checkReferenceExit(sc, r)
			}
			return r
		},
		Close: func() error {
			mu.Lock()
			defer mu.Unlock()
			var errs []error
			for _, t := range targets {
				errs = append(errs, t.Close())
			}
			return errors.Join(errs...)
		},
	}
}

// ReferenceCorePairing plays the scripted Runtime against the reference Core in process.
func ReferenceCorePairing() Pairing {
	return Pairing{
		Name: "core: reference", Labels: []string{"core"},
		Covers: func(sc *scenarios.Scenario) bool { return sc.Tests.Covers(scenarios.SideCore) },
		Skip:   func(*scenarios.Scenario) string { return "" },
		Play:   PlayReferenceCore,
	}
}

func coversRuntime(sc *scenarios.Scenario) bool { return sc.Tests.Covers(scenarios.SideRuntime) }

// TotalAdvance is how far a scenario moves the clock: its advance steps and its settle steps'
// advance, includes expanded.
func TotalAdvance(sc *scenarios.Scenario) time.Duration {
	var total time.Duration
	for _, st := range sc.Steps {
		if st.Kind == scenarios.StepAdvance || st.Kind == scenarios.StepSettle {
			total += st.Advance
		}
	}
	if a := sc.BootstrapAnswer; a != nil {
		total += time.Duration(a.StalledUpgrades) * proto.HandshakeTimeout // each one waits out the timeout
	}
	return total
}

// checkReferenceExit fails a passing result unless every daemon the scenario launched ended on
// its own or on SIGTERM, with the exit code `wirecheck runtime` promises, and left nothing behind.
func checkReferenceExit(sc *scenarios.Scenario, r *scenarios.Result) {
	want, why := referenceExit(sc)
	for _, d := range r.Daemons {
		var msg string
		switch {
		case d.LeftBehind != "":
			msg = "processes of the Runtime's process group outlived it and were killed: " + d.LeftBehind
		case d.Killed || d.Exit == "":
			msg = fmt.Sprintf("the daemon did not exit on its own or on SIGTERM (%s)", orStill(d.Exit))
		case d.Code != want:
			msg = fmt.Sprintf("wirecheck runtime must exit %d: %s; it ended with %s", want, why, d.Exit)
		default:
			continue
		}
		r.Verdict = scenarios.Fail
		r.Failure = &scenarios.Failure{Message: msg + "\n  its last output:\n    " + strings.Join(d.Output, "\n    ")}
		return
	}
}

func orStill(exit string) string {
	if exit == "" {
		return "still running"
	}
	return exit
}

// referenceExit is the exit code of `wirecheck runtime` at the end of a scenario, and why.
func referenceExit(sc *scenarios.Scenario) (int, string) {
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
