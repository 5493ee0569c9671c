package load

import (
	"context"
	"sync"
	"time"
)

// wheelTick is the wheel's resolution: a Runtime heartbeats within a tick of its interval.
const wheelTick = 100 * time.Millisecond

// wheel heartbeats every Runtime at the Core's interval from one goroutine and one ticker: the
// Runtimes are spread over interval/tick slots, and each tick beats one slot. A goroutine and a
// ticker per Runtime would cost more than the rest of a simulated Runtime.
type wheel struct {
	ctx  context.Context
	wg   *sync.WaitGroup
	once sync.Once

	mu       sync.Mutex
	pending  []*simRuntime
	slots    [][]*simRuntime
	interval time.Duration
}

// add puts a Runtime in its slot; the wheel beats it from its first tick after start.
func (w *wheel) add(rs []*simRuntime) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, rs...)
}

// start starts the wheel at the interval of the first bootstrap (later ones do not change it).
func (w *wheel) start(interval time.Duration) {
	if interval <= 0 {
		interval = 15 * time.Second
	}
	w.once.Do(func() {
		n := max(1, int(interval/wheelTick))
		w.mu.Lock()
		w.interval = interval
		w.slots = make([][]*simRuntime, n)
		for i, r := range w.pending {
			w.slots[i%n] = append(w.slots[i%n], r)
		}
		w.pending = nil
		w.mu.Unlock()
		w.wg.Add(1)
		go w.run(interval / time.Duration(n))
	})
}

func (w *wheel) run(tick time.Duration) {
	defer w.wg.Done()
	t := time.NewTicker(tick)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
		}
		w.mu.Lock()
		slot := w.slots[i%len(w.slots)]
		w.mu.Unlock()
		for _, r := range slot {
			if w.ctx.Err() != nil {
				return
			}
			_ = r.heartbeat()
		}
	}
}
