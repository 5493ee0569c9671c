package script

import (
	"context"
	"sync"
	"time"
)

// Gate lets two scripted peers in one process agree on when a silence window has ended. The peer
// that observes the silence opens the step's gate when its window closes; the peer that must stay
// quiet waits for it before its next step. Without it the quiet peer can only guess with a longer
// timer, and on a loaded machine a guess is a flaky test. Only the scripted-vs-scripted self-check
// shares a Gate; against a real implementation no one observes the scripted peer's silence.
type Gate struct {
	mu    sync.Mutex
	steps map[int]chan struct{}
}

// NewGate returns a gate with every step closed.
func NewGate() *Gate { return &Gate{steps: map[int]chan struct{}{}} }

func (g *Gate) ch(step int) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.steps[step]
	if !ok {
		c = make(chan struct{})
		g.steps[step] = c
	}
	return c
}

// Open marks the window of a step as over.
func (g *Gate) Open(step int) {
	c := g.ch(step)
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-c:
	default:
		close(c)
	}
}

// Wait blocks until the step's window is over, ctx ends, or bound passes.
func (g *Gate) Wait(ctx context.Context, step int, bound time.Duration) {
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-g.ch(step):
	case <-ctx.Done():
	case <-t.C:
	}
}
