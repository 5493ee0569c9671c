package scriptedcore

import (
	"time"

	"github.com/wirecheck/wirecheck/scenarios"
)

// retryBound is how long the scripted Core waits for a daemon's next bootstrap after an unusable
// answer: the spec names no backoff schedule, only that there is one (CN-18).
const retryBound = 30 * time.Second

// awaitRetries plays the scenario's unusable bootstrap answers (CN-18, CN-44): after each, the
// daemon's next request must be a bootstrap again (it never dials with an unusable answer), and on a
// virtual clock it must not come before the clock moves (a retry waits a backoff). The clock is
// then moved a minute at a time, once a timer of the daemon falls due.
func (r *run) awaitRetries(unusable []scenarios.UnusableAnswer) *scenarios.Failure {
	if len(unusable) == 0 {
		return nil
	}
	if f := r.nextAttempt(0, r.cfg.StartTimeout, "after it was launched"); f != nil {
		return f
	}
	for i := range unusable {
		if vc, ok := r.virtualClock(); ok {
			if what, came := r.attemptWithin(i+1, 2*scenarios.DefaultSilenceWindow); came {
				return r.p.Failf(nil, "after unusable bootstrap answer %d the Runtime made its next request (%s) at once; a transient failure is retried with a backoff (CN-18)", i+1, what)
			}
			stop := r.moveClockWhenDue(vc)
			f := r.nextAttempt(i+1, retryBound, "after an unusable bootstrap answer")
			stop()
			if f != nil {
				return f
			}
		} else if f := r.nextAttempt(i+1, retryBound, "after an unusable bootstrap answer"); f != nil {
			return f
		}
		if what, _ := r.srv.attemptAfter(i + 1); what != "bootstrap" {
			return r.p.Failf(nil, "after unusable bootstrap answer %d the Runtime's next request was a %s; it must not use the answer and must bootstrap again (CN-44)", i+1, what)
		}
	}
	return nil
}

type dueClock interface {
	WaitDue(d, wait time.Duration) bool
	Advance(d time.Duration)
}

func (r *run) virtualClock() (dueClock, bool) {
	c, ok := r.cfg.Clock.(dueClock)
	return c, ok
}

// moveClockWhenDue advances the daemon's clock a minute once one of its timers falls due in that
// minute (its backoff), once: the next backoff must again be seen not to pass at once.
func (r *run) moveClockWhenDue(c dueClock) (stop func()) {
	quit, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		for {
			select {
			case <-quit:
				return
			default:
			}
			if c.WaitDue(time.Minute, 20*time.Millisecond) {
				c.Advance(time.Minute)
				return
			}
		}
	}()
	return func() { close(quit); <-ended }
}

// attemptWithin reports the (n+1)-th request (0-based n) if it comes within d.
func (r *run) attemptWithin(n int, d time.Duration) (string, bool) {
	deadline := time.Now().Add(d)
	for {
		if what, ok := r.srv.attemptAfter(n); ok {
			return what, true
		}
		if time.Now().After(deadline) {
			return "", false
		}
		select {
		case <-r.srv.attempts:
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// nextAttempt waits for the (n+1)-th request within bound.
func (r *run) nextAttempt(n int, bound time.Duration, when string) *scenarios.Failure {
	deadline := time.Now().Add(bound)
	for {
		if _, ok := r.srv.attemptAfter(n); ok {
			return nil
		}
		select {
		case <-r.rt.Done():
			if _, ok := r.srv.attemptAfter(n); ok {
				return nil
			}
			return r.exited(nil, "instead of bootstrapping again "+when)
		case <-r.srv.attempts:
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return r.p.Failf(nil, "the Runtime made no request within %v %s; a transient failure is retried (CN-18)", bound, when)
		}
	}
}
