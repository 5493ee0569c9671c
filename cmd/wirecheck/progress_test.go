package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// fakeNow is a clock a test moves by hand.
type fakeNow struct{ t time.Time }

func (f *fakeNow) now() time.Time          { return f.t }
func (f *fakeNow) advance(d time.Duration) { f.t = f.t.Add(d) }
func newFakeNow() *fakeNow                 { return &fakeNow{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func scenario(id string, advance time.Duration) *scenarios.Scenario {
	return &scenarios.Scenario{ID: id, Steps: []*scenarios.Step{{Kind: scenarios.StepAdvance, Advance: advance, Index: 1}}}
}

func result(id string, v scenarios.Verdict, took time.Duration, why string) *scenarios.Result {
	r := &scenarios.Result{Scenario: id, Verdict: v, Duration: took}
	if why != "" {
		r.Failure = &scenarios.Failure{Message: why}
	}
	return r
}

// lastStatus is the status line as a terminal shows it last.
func lastStatus(out string) string {
	i := strings.LastIndex(out, "\r\033[K")
	return out[i+len("\r\033[K"):]
}

// On a terminal: one status line, redrawn, with N of M, the scenarios running, elapsed and
// estimated time; lines that stay only for what needs a look.
func TestProgressOnATerminalRedrawsOneStatusLine(t *testing.T) {
	clk := newFakeNow()
	var out bytes.Buffer
	scs := []*scenarios.Scenario{scenario("a/quick", 0), scenario("b/expiry", 5*time.Minute), scenario("c/quick", 0), scenario("d/broken", 0)}
	p := newProgress(&out, true, 200, clk.now, scs, 2, func(id string) bool { return id == "d/broken" })

	p.Started(scs[0])
	p.Started(scs[1])
	clk.advance(2 * time.Second)
	p.Finished(result("a/quick", scenarios.Pass, 2*time.Second, ""))
	p.Waiting(runner.Wait{Scenario: "b/expiry", Step: 7, Kind: scenarios.StepAdvance, Duration: 5 * time.Minute, Since: clk.now()})
	p.Started(scs[2])
	clk.advance(time.Minute)
	p.Tick()
	status := lastStatus(out.String())
	for _, want := range []string{"1/4 done", "1m2s elapsed", "about 4m", "running: b/expiry (waiting 5m0s, 4m0s left), c/quick"} {
		if !strings.Contains(status, want) {
			t.Errorf("the status line %q does not say %q", status, want)
		}
	}
	if strings.Contains(out.String(), "pass") {
		t.Errorf("a pass was printed on a terminal:\n%q", out.String())
	}
	if !strings.Contains(out.String(), "b/expiry: waiting 5m0s of real time (advance step 7)\n") {
		t.Errorf("the long wait was not announced on a line of its own:\n%q", out.String())
	}

	p.Finished(result("d/broken", scenarios.Fail, time.Second, "step 3: runtime frame differs: payload.state\n  diff …"))
	if !strings.Contains(out.String(), "[2/4] fail           d/broken (1s) [known failing]: step 3: runtime frame differs: payload.state\n") {
		t.Errorf("a failure is not on a line of its own with its first line of why:\n%q", out.String())
	}
	if strings.Contains(out.String(), "diff …") {
		t.Errorf("more than the first line of why was printed")
	}

	narrow := newProgress(&bytes.Buffer{}, true, 40, clk.now, scs, 1, nil)
	narrow.Started(scs[1])
	if s := narrow.status(); len([]rune(s)) >= 40 || !strings.HasSuffix(s, "…") {
		t.Errorf("the status line %q does not fit in 40 columns", s)
	}

	p.Close()
	if !strings.HasSuffix(out.String(), "\r\033[K") {
		t.Errorf("Close left the status line on the screen")
	}
}

// The estimate follows the real waits: a five-minute scenario not yet started counts for five
// minutes, shared between the lanes, but never less than what a running one still has to go.
func TestProgressEstimatesFromTheRealWaits(t *testing.T) {
	clk := newFakeNow()
	scs := []*scenarios.Scenario{scenario("a", 0), scenario("b", 5*time.Minute), scenario("c", 0)}
	p := newProgress(&bytes.Buffer{}, true, 0, clk.now, scs, 1, nil)
	p.Started(scs[0])
	clk.advance(2 * time.Second)
	p.Finished(result("a", scenarios.Pass, 2*time.Second, ""))
	// Left: b (5m + 2s of overhead) and c (2s), one lane.
	if got, want := p.remaining(clk.now()), 5*time.Minute+4*time.Second; got != want {
		t.Errorf("remaining = %v, want %v", got, want)
	}
	p.parallel = 4
	p.Started(scs[1])
	clk.advance(time.Minute)
	if got, want := p.remaining(clk.now()), 4*time.Minute+2*time.Second; got != want {
		t.Errorf("with four lanes and b a minute in: remaining = %v, want %v", got, want)
	}
}

// The estimate counts the waits no step spells out (a stalled upgrade waits for the daemon's
// handshake timeout), and neither a running scenario past its estimate nor a long wait at its end
// is ever shown as having nothing left while it still runs.
func TestProgressNeverShowsARunningScenarioAsDone(t *testing.T) {
	clk := newFakeNow()
	stalled := scenario("s/stalled-upgrade", 0)
	stalled.BootstrapAnswer = &scenarios.BootstrapAnswer{StalledUpgrades: 2}
	p := newProgress(&bytes.Buffer{}, true, 200, clk.now, []*scenarios.Scenario{stalled, scenario("w/wait", 20*time.Second)}, 1, nil)
	if got, want := p.remaining(clk.now()), 2*10*time.Second+time.Second+20*time.Second+time.Second; got != want {
		t.Errorf("before anything started: remaining = %v, want %v (two handshake timeouts, a 20 s advance, a guessed second each)", got, want)
	}
	p.Started(stalled)
	clk.advance(time.Minute) // far past its 21 s
	p.Finished(result("s/stalled-upgrade", scenarios.Pass, time.Minute, ""))
	p.Started(scenario("w/wait", 20*time.Second))
	p.Waiting(runner.Wait{Scenario: "w/wait", Step: 1, Kind: scenarios.StepAdvance, Duration: 20 * time.Second, Since: clk.now()})
	clk.advance(10 * time.Minute)
	if got := p.remaining(clk.now()); got < time.Second {
		t.Errorf("a scenario still running has %v left", got)
	}
	if status := p.status(); !strings.Contains(status, "about 1s left") || !strings.Contains(status, "(waiting 20s, 1s left)") {
		t.Errorf("the status line %q shows a running scenario as done", status)
	}
}

// In CI (no terminal): one line per scenario, its verdict and, unless it passed, the first line
// of why; no status line, no control characters.
func TestProgressInCIIsOneLinePerScenario(t *testing.T) {
	clk := newFakeNow()
	var out bytes.Buffer
	scs := []*scenarios.Scenario{scenario("a/ok", 0), scenario("b/bad", 0), scenario("c/na", 0)}
	p := newProgress(&out, false, 0, clk.now, scs, 1, nil)
	for _, sc := range scs {
		p.Started(sc)
	}
	p.Tick()
	p.Finished(result("a/ok", scenarios.Pass, 1500*time.Millisecond, ""))
	p.Finished(result("b/bad", scenarios.Fail, time.Second, "the Runtime stopped before connecting (exit code 7)\n  its last output: …"))
	p.Finished(result("c/na", scenarios.NotApplicable, time.Second, `kind "contract" does not declare [preparation]`))
	p.Close()
	want := "[1/3] pass           a/ok (1.5s)\n" +
		"[2/3] fail           b/bad (1s): the Runtime stopped before connecting (exit code 7)\n" +
		"[3/3] not_applicable c/na (1s): kind \"contract\" does not declare [preparation]\n"
	if out.String() != want {
		t.Errorf("CI output:\n%s\nwant:\n%s", out.String(), want)
	}
}
