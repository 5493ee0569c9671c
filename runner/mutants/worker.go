//go:build wirecheck_mutants

package mutants

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/mutation"
	"github.com/wirecheck/wirecheck/scenarios"
)

// The matrix plays in worker processes: copies of the matrix's own test binary, each with its own
// mutant switch (the switch is process-wide), each playing one scenario at a time. One at a time
// is what makes a play's reached points its own; several processes are what keeps the machine
// busy, since a play against the in-process reference mostly waits on loopback.

// workerEnv, when set in a test binary's environment, makes its TestMain serve plays (Serve)
// instead of running tests.
const workerEnv = "WIRECHECK_MUTANTS_WORKER"

// A play asks a worker to play one scenario with one mutant active ("" for none).
type play struct {
	Scenario string `json:"scenario"`
	Point    string `json:"point,omitempty"`
	// Alone plays with the side's full bounds: the replay that confirms a failure.
	Alone bool `json:"alone,omitempty"`
}

// An outcome is what one play gave: its verdict, the failure's first line, what it cost and the
// mutation points it reached.
type outcome struct {
	Scenario string            `json:"scenario"`
	Verdict  scenarios.Verdict `json:"verdict"`
	Failure  string            `json:"failure,omitempty"`
	Took     time.Duration     `json:"took"`
	Reached  []string          `json:"reached,omitempty"`
}

// Side is how one reference side's scenarios are played by a worker.
type Side struct {
	// Name is "runtime" or "core": which lines of the survivors file and which kill record are
	// the side's.
	Name string
	// Scenarios are the side's scenarios the unmutated reference must pass.
	Scenarios func() ([]*scenarios.Scenario, error)
	// Play plays one scenario; alone asks for the full bounds of a confirming replay (a short
	// real-time bound lets a mutant that withholds a frame fail sooner). It calls decided as the
	// verdict is decided, before the peers are torn down (runner.Options.Decided): a point reached
	// only while they are torn down cannot change the verdict, and is not counted as reached.
	Play func(sc *scenarios.Scenario, alone bool, decided func()) *scenarios.Result
}

// ServeIfWorker serves plays on standard input and output when the process was started as a
// worker (see Pool), and exits; otherwise it returns at once. Call it first in TestMain.
func ServeIfWorker(s Side) {
	if os.Getenv(workerEnv) == "" {
		return
	}
	if err := serve(s, os.Stdin, os.NewFile(3, "plays")); err != nil {
		fmt.Fprintln(os.Stderr, "mutants worker:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// serve answers each play read from in with its outcome on out, one JSON line each.
func serve(s Side, in io.Reader, out io.Writer) error {
	scs, err := s.Scenarios()
	if err != nil {
		return err
	}
	byID := map[string]*scenarios.Scenario{}
	for _, sc := range scs {
		byID[sc.ID] = sc
	}
	dec, enc := json.NewDecoder(in), json.NewEncoder(out)
	for {
		var p play
		if err := dec.Decode(&p); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading a play: %w", err)
		}
		sc := byID[p.Scenario]
		if sc == nil {
			return fmt.Errorf("play of %q: no such scenario on this side", p.Scenario)
		}
		restore := mutation.Activate(p.Point)
		mutation.ResetReached()
		var reached []string
		decided := false
		r := s.Play(sc, p.Alone, func() { reached, decided = mutation.Reached(), true })
		if !decided {
			reached = mutation.Reached()
		}
		o := outcome{Scenario: sc.ID, Verdict: r.Verdict, Took: r.Duration, Reached: reached}
		restore()
		if r.Verdict != scenarios.Pass {
			o.Failure, _, _ = strings.Cut(r.String(), "\n")
		}
		if err := enc.Encode(o); err != nil {
			return fmt.Errorf("writing the outcome of %s: %w", sc.ID, err)
		}
	}
}

// A worker is one serving process, driven by one goroutine at a time.
type worker struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *json.Decoder
	outR   *os.File
	stderr *tailBuffer
	done   chan struct{} // closed when the process has exited
}

// Hang is how long a single play may go unanswered before its worker is killed: a safety net far
// above any play's own bounds (a scenario's steps are each bounded), so only a play that hangs
// (a mutant that deadlocks the reference) ever meets it.
const Hang = 2 * time.Minute

func startWorker() (*worker, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	cmd.ExtraFiles = []*os.File{w}
	stderr := &tailBuffer{max: 8 << 10}
	cmd.Stderr, cmd.Stdout = stderr, stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close()
	wk := &worker{cmd: cmd, in: in, out: json.NewDecoder(r), outR: r, stderr: stderr, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(wk.done)
	}()
	return wk, nil
}

// play sends p and waits for its outcome, at most Hang.
func (wk *worker) play(p play) (outcome, error) {
	if err := json.NewEncoder(wk.in).Encode(p); err != nil {
		return outcome{}, fmt.Errorf("sending %s: %w (worker said: %s)", p.Scenario, err, wk.stderr)
	}
	type answer struct {
		o   outcome
		err error
	}
	got := make(chan answer, 1)
	go func() {
		var o outcome
		err := wk.out.Decode(&o)
		got <- answer{o, err}
	}()
	select {
	case a := <-got:
		if a.err != nil {
			return outcome{}, fmt.Errorf("reading the outcome of %s: %w (worker said: %s)", p.Scenario, a.err, wk.stderr)
		}
		return a.o, nil
	case <-time.After(Hang):
		wk.kill()
		<-got
		return outcome{}, errHang
	}
}

var errHang = fmt.Errorf("no outcome within %v: the play hung and its worker was killed", Hang)

func (wk *worker) kill() {
	_ = wk.cmd.Process.Kill()
	<-wk.done
	wk.outR.Close()
}

// close ends the worker: it exits when its input ends.
func (wk *worker) close() {
	wk.in.Close()
	select {
	case <-wk.done:
	case <-time.After(10 * time.Second):
		_ = wk.cmd.Process.Kill()
		<-wk.done
	}
	wk.outR.Close()
}

// Pool is a set of workers; each call of Run lends one to f at a time.
type Pool struct {
	free chan *worker
	all  []*worker
	mu   sync.Mutex
}

// NewPool starts n workers of the running test binary.
func NewPool(n int) (*Pool, error) {
	p := &Pool{free: make(chan *worker, n)}
	for range n {
		wk, err := startWorker()
		if err != nil {
			p.Close()
			return nil, err
		}
		p.all = append(p.all, wk)
		p.free <- wk
	}
	return p, nil
}

// Play plays p on a free worker. A worker whose play hung is replaced, and the play reported as
// a failure of the scenario (a mutant that hangs the reference does not pass it).
func (p *Pool) Play(ctx context.Context, pl play) (outcome, error) {
	var wk *worker
	select {
	case wk = <-p.free:
	case <-ctx.Done():
		return outcome{}, ctx.Err()
	}
	o, err := wk.play(pl)
	if err != nil {
		if !errors.Is(err, errHang) {
			wk.kill()
		}
		fresh, serr := startWorker()
		if serr != nil {
			return outcome{}, errors.Join(err, serr)
		}
		p.mu.Lock()
		p.all = append(p.all, fresh)
		p.mu.Unlock()
		p.free <- fresh
		if errors.Is(err, errHang) {
			return outcome{Scenario: pl.Scenario, Verdict: scenarios.Fail, Failure: err.Error(), Took: Hang}, nil
		}
		return outcome{}, err
	}
	p.free <- wk
	return o, nil
}

// Close ends every worker.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, wk := range p.all {
		select {
		case <-wk.done:
		default:
			wk.close()
		}
	}
}

// tailBuffer keeps the last max bytes written to it: what a worker said before it failed.
type tailBuffer struct {
	mu  sync.Mutex
	b   bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(t.b.String())
	if s == "" {
		return "nothing"
	}
	return s
}
