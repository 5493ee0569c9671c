package admission

import (
	"fmt"
	"time"

	"github.com/cockroachdb/datadriven"
)

// parseEvent builds the event a test command names. Unknown arguments are errors, so a typo
// cannot silently fall back to a default.
func parseEvent(cmd string, cmdArgs []datadriven.CmdArg) (Event, error) {
	a := newArgs(cmdArgs)
	var ev Event
	switch EventKind(cmd) {
	case KindPrepareAccepted:
		readOnly := a.flag("read-only")
		executor := "e1"
		if readOnly {
			executor = ""
		}
		ev = PrepareAccepted{Now: a.instant("now", "0s"), Expiry: a.duration("expiry", "5m"), Handle: a.str("handle", "h1"),
			ExecutorID: a.str("executor", executor), Reused: a.flag("reused"), ReadOnly: readOnly, Hash: a.str("hash", "p1")}
	case KindPrepareRepeated:
		ev = PrepareRepeated{Hash: a.str("hash", "p1")}
	case KindSetupSucceeded:
		ev = SetupSucceeded{}
	case KindSetupFailed:
		ev = SetupFailed{}
	case KindSetupCleanupFailed:
		ev = SetupCleanupFailed{}
	case KindStartRequested:
		ev = StartRequested{Now: a.instant("now", "1s"), ExecutorID: a.str("executor", "e1"), RunID: a.str("run", "r1"),
			Hash: a.str("hash", "s1"), RunActive: a.flag("run-active")}
	case KindTurnStarted:
		ev = TurnStarted{}
	case KindStartAborted:
		ev = StartAborted{}
	case KindNativeStartFailed:
		ev = NativeStartFailed{Cancelled: a.flag("cancelled"), CleanupFailed: a.flag("cleanup-failed")}
	case KindReleaseRequested:
		ev = ReleaseRequested{}
	case KindExpiryFired:
		ev = ExpiryFired{Now: a.instant("now", "5m")}
	case KindStatusDeliveryFailed:
		ev = StatusDeliveryFailed{}
	case KindDeviceShutdown:
		ev = DeviceShutdown{}
	case KindConnectionClosed:
		ev = ConnectionClosed{}
	default:
		return nil, fmt.Errorf("unknown command %q", cmd)
	}
	return ev, a.err()
}

// args reads a command's key=value arguments and remembers which were used and what was wrong.
type args struct {
	vals   map[string]string
	used   map[string]bool
	errors []error
}

func newArgs(cmdArgs []datadriven.CmdArg) *args {
	a := &args{vals: map[string]string{}, used: map[string]bool{}}
	for _, c := range cmdArgs {
		a.vals[c.Key] = ""
		if len(c.Vals) > 0 {
			a.vals[c.Key] = c.Vals[0]
		}
	}
	return a
}

func (a *args) str(key, def string) string {
	a.used[key] = true
	if v, ok := a.vals[key]; ok {
		return v
	}
	return def
}

func (a *args) flag(key string) bool {
	a.used[key] = true
	_, ok := a.vals[key]
	return ok
}

func (a *args) duration(key, def string) time.Duration {
	d, err := time.ParseDuration(a.str(key, def))
	if err != nil {
		a.errors = append(a.errors, fmt.Errorf("%s: %v", key, err))
	}
	return d
}

// instant is an offset from the test epoch.
func (a *args) instant(key, def string) time.Time { return epoch.Add(a.duration(key, def)) }

func (a *args) err() error {
	for k := range a.vals {
		if !a.used[k] {
			a.errors = append(a.errors, fmt.Errorf("unknown argument %q", k))
		}
	}
	if len(a.errors) > 0 {
		return fmt.Errorf("%v", a.errors)
	}
	return nil
}
