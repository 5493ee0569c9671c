package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// progress tells a user where a certification stands while it runs. On a terminal (live) it
// redraws one status line (N of M done, the scenarios running, elapsed and estimated time left)
// and prints a line only for what needs a look: a result that did not pass, a long wait. In CI it
// prints one line per scenario with its verdict and, unless it passed, the first line of why.
type progress struct {
	w     io.Writer
	live  bool
	width int              // columns of the terminal: the status line must not wrap
	now   func() time.Time // injected by tests
	known func(id string) bool

	mu       sync.Mutex
	start    time.Time
	total    int
	parallel int
	done     int
	overhead time.Duration            // what finished scenarios took beyond their expected waits, summed
	waits    map[string]time.Duration // each scenario's expected real time (runner.ExpectedRealTime)
	pending  map[string]bool          // not started yet
	running  map[string]*scenarioRun
	drawn    bool // the status line is on screen
}

type scenarioRun struct {
	since time.Time
	wait  *runner.Wait // the long wait it is in, if any
}

func newProgress(w io.Writer, live bool, width int, now func() time.Time, scs []*scenarios.Scenario, parallel int, known func(string) bool) *progress {
	p := &progress{w: w, live: live, width: width, now: now, known: known, start: now(), total: len(scs),
		parallel: max(parallel, 1), waits: map[string]time.Duration{}, pending: map[string]bool{}, running: map[string]*scenarioRun{}}
	for _, sc := range scs {
		p.waits[sc.ID] = runner.ExpectedRealTime(sc)
		p.pending[sc.ID] = true
	}
	return p
}

func (p *progress) Started(sc *scenarios.Scenario) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pending, sc.ID)
	p.running[sc.ID] = &scenarioRun{since: p.now()}
	p.redraw()
}

func (p *progress) Waiting(w runner.Wait) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.running[w.Scenario]; r != nil {
		r.wait = &w
	}
	p.println(w.String())
}

func (p *progress) Finished(r *scenarios.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	delete(p.pending, r.Scenario) // a scenario the run was interrupted before
	delete(p.running, r.Scenario)
	p.overhead += max(r.Duration-p.waits[r.Scenario], 0)
	if !p.live || r.Verdict != scenarios.Pass {
		p.println(p.resultLine(r))
		return
	}
	p.redraw()
}

// Notice prints a line that stays (above the status line on a terminal).
func (p *progress) Notice(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.println(line)
}

// Tick redraws the status line, so its clocks move while nothing else happens.
func (p *progress) Tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.redraw()
}

// Close takes the status line off the screen.
func (p *progress) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *progress) resultLine(r *scenarios.Result) string {
	line := fmt.Sprintf("[%*d/%d] %-14s %s (%v)", len(fmt.Sprint(p.total)), p.done, p.total, r.Verdict, r.Scenario, r.Duration.Round(time.Millisecond))
	if p.known != nil && p.known(r.Scenario) {
		line += " [known failing]"
	}
	if r.Verdict != scenarios.Pass && r.Failure != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(r.Failure.Message), "\n")
		line += ": " + first
	}
	return line
}

// println prints a line that stays, above the status line on a terminal.
func (p *progress) println(line string) {
	p.clear()
	fmt.Fprintln(p.w, line)
	p.redraw()
}

func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

func (p *progress) redraw() {
	if !p.live {
		return
	}
	p.clear()
	fmt.Fprint(p.w, p.status())
	p.drawn = true
}

// status is the one line a terminal shows, cut to its width.
func (p *progress) status() string {
	now := p.now()
	line := fmt.Sprintf("%d/%d done · %v elapsed", p.done, p.total, short(now.Sub(p.start)))
	if p.done < p.total {
		line += fmt.Sprintf(" · about %v left", short(p.remaining(now)))
	}
	ids := slices.Sorted(maps.Keys(p.running))
	for i, id := range ids {
		if i == 2 {
			line += fmt.Sprintf(" (+%d more)", len(ids)-i)
			break
		}
		sep := ", "
		if i == 0 {
			sep = " · running: "
		}
		line += sep + id
		if w := p.running[id].wait; w != nil {
			line += fmt.Sprintf(" (waiting %v, %v left)", w.Duration, short(max(w.Duration-now.Sub(w.Since), time.Second)))
		}
	}
	if r := []rune(line); p.width > 1 && len(r) >= p.width {
		line = string(r[:p.width-2]) + "…"
	}
	return line
}

// remaining estimates the time left: each scenario takes the real time its steps and the daemon's
// own timers are expected to wait (runner.ExpectedRealTime) and what finished ones took beyond
// theirs, on average; the lanes share the work, but no faster than the longest running scenario
// ends. A running scenario past its estimate still has a second to go: it has not ended, and
// "0s left" would say it had.
func (p *progress) remaining(now time.Time) time.Duration {
	per := time.Second // before anything finished: a guess
	if p.done > 0 {
		per = p.overhead / time.Duration(p.done)
	}
	var work, longest time.Duration
	for id, r := range p.running {
		left := max(p.waits[id]+per-now.Sub(r.since), time.Second)
		work += left
		longest = max(longest, left)
	}
	for id := range p.pending {
		work += p.waits[id] + per
	}
	return max(work/time.Duration(p.parallel), longest)
}

// short is a duration to the second, the way a status line shows it.
func short(d time.Duration) time.Duration { return d.Round(time.Second) }

// run redraws the status line every interval until the returned stop, which also takes the line
// off the screen. Without a terminal there is nothing to redraw.
func (p *progress) run(interval time.Duration) (stop func()) {
	if !p.live {
		return func() {}
	}
	done, ended := make(chan struct{}), make(chan struct{})
	go func() { // owner: stop
		defer close(ended)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.Tick()
			case <-done:
				return
			}
		}
	}()
	return func() {
		close(done)
		<-ended
		p.Close()
	}
}
