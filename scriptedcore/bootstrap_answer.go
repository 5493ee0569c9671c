package scriptedcore

import (
	"cmp"
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/scenarios"
)

// retryBound is how long the scripted Core waits for a daemon's next bootstrap after an unusable
// answer: the spec names no backoff schedule, only that there is one (CN-18.4). A daemon that
// makes no request within it has stopped trying, which the spec allows (awaitRetries).
const retryBound = 30 * time.Second

// stoppedAfterUnusable is what a run says of a daemon that stopped after an unusable bootstrap
// answer without dialling with it: no failure, the scenario ends there.
type stoppedAfterUnusable struct {
	answer int    // 1-based: the unusable answer it stopped after
	how    string // "exited (...)" or "made no request within 30s"
}

func (s *stoppedAfterUnusable) String() string {
	return fmt.Sprintf("after unusable bootstrap answer %d the Runtime %s without dialling with it: an error it may stop at "+
		"(docs/spec-readings.md, bootstrap-error-retry-or-stop)", s.answer, s.how)
}

// awaitRetries plays the scenario's unusable bootstrap answers (CN-44, CN-18.4). After each the
// spec lets the daemon choose (docs/spec-readings.md, bootstrap-error-retry-or-stop): bootstrap
// again after a backoff, or stop (exit, or make no further request). What it forbids fails: a
// dial with the answer (CN-44.2/.3/.4, per answer) and, on a virtual clock, a retry before the
// clock moves (no backoff, CN-18.4). On a virtual clock the clock is moved a minute at a time,
// once a timer of the daemon falls due. stopped is set when the daemon stopped: nothing further
// is played.
func (r *run) awaitRetries(unusable []scenarios.UnusableAnswer) (stopped *stoppedAfterUnusable, f *scenarios.Failure) {
	if len(unusable) == 0 {
		return nil, nil
	}
	if f := r.firstAttempt(); f != nil {
		return nil, f
	}
	for i, u := range unusable {
		if what, came := r.srv.attemptAfter(i + 1); came && what != "bootstrap" {
			return nil, r.dialledWith(i+1, u, what)
		}
		// No further request within the bound: the daemon exited, or stopped trying, or backs off
		// longer than the bound; each is allowed.
		var came bool
		if vc, ok := r.virtualClock(); ok {
			if what, came := r.attemptWithin(i+1, 2*scenarios.DefaultSilenceWindow); came {
				if what != "bootstrap" {
					return nil, r.dialledWith(i+1, u, what)
				}
				return nil, r.p.Failf(nil, "after unusable bootstrap answer %d the Runtime bootstrapped again at once, before its clock moved; "+
					"a retry waits a backoff (CN-18.4)", i+1)
			}
			stop := r.moveClockWhenDue(vc)
			came, _ = r.awaitAttempt(i+1, r.retryBound())
			stop()
		} else {
			came, _ = r.awaitAttempt(i+1, r.retryBound())
		}
		if !came {
			how := fmt.Sprintf("made no request within %v", r.retryBound())
			if r.rt.Done() != nil {
				select {
				case <-r.rt.Done():
					how = "stopped" + exitReason(r.rt)
				default:
				}
			}
			return &stoppedAfterUnusable{answer: i + 1, how: how}, nil
		}
		if what, _ := r.srv.attemptAfter(i + 1); what != "bootstrap" {
			return nil, r.dialledWith(i+1, u, what)
		}
	}
	return nil, nil
}

// dialledWith is the failure of a daemon whose next request after an unusable answer was not a
// bootstrap: it used the answer, which the clause of that answer forbids.
func (r *run) dialledWith(n int, u scenarios.UnusableAnswer, what string) *scenarios.Failure {
	return r.p.Failf(nil, "after unusable bootstrap answer %d (%s) the Runtime's next request was a %s; %s",
		n, u.Describe(), what, u.Forbids())
}

func (r *run) retryBound() time.Duration { return cmp.Or(r.cfg.RetryBound, retryBound) }

// awaitAttempt waits within bound for the daemon's (n+1)-th request: whether it came, and
// whether the daemon exited without making it.
func (r *run) awaitAttempt(n int, bound time.Duration) (came, exited bool) {
	deadline := time.Now().Add(bound)
	for {
		if _, ok := r.srv.attemptAfter(n); ok {
			return true, false
		}
		select {
		case <-r.rt.Done():
			_, ok := r.srv.attemptAfter(n)
			return ok, !ok
		case <-r.srv.attempts:
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return false, false
		}
	}
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

// firstAttempt waits, within the start-up bound, for the daemon's first request.
func (r *run) firstAttempt() *scenarios.Failure {
	switch came, exited := r.awaitAttempt(0, r.cfg.StartTimeout); {
	case came:
		return nil
	case exited:
		return r.exited(nil, "before its first bootstrap")
	}
	return r.p.Failf(nil, "the Runtime made no request within %v of being launched", r.cfg.StartTimeout)
}
