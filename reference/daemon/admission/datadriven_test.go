package admission

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// epoch is where every test's time starts (the Fake clock's epoch); `now=` arguments are offsets
// from it.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestAdmission plays testdata/*.txt: each command feeds one event to the file's record and prints
// the next record and the effects, or the error. Commands:
//
//	reset                     a fresh record (state none)
//	given state=<s> [reused]  a fresh record driven into state s by ordinary events
//	invalid                   each input line is an event the record must refuse, unchanged
//	table                     the transition table, one row per line
//	<event kind> [args]       prepare-accepted now= expiry= handle= executor= hash= [reused] [read-only]
//	                          prepare-repeated hash=
//	                          start-requested now= executor= run= hash= [run-active]
//	                          native-start-failed [cancelled] [cleanup-failed]
//	                          expiry-fired now=
//	                          any other kind takes no arguments
//
// Run with -rewrite to regenerate the expected output.
func TestAdmission(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var rec Record
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "reset":
				rec = Record{}
				return rec.String()
			case "given":
				var state string
				td.ScanArgs(t, "state", &state)
				if state == None.String() {
					state = string(None)
				}
				rec = given(t, State(state), td.HasArg("reused"))
				return rec.String()
			case "invalid":
				return refuseEach(t, rec, td.Input)
			case "table":
				return renderTable()
			}
			ev, err := parseEvent(td.Cmd, td.CmdArgs)
			if err != nil {
				td.Fatalf(t, "%v", err)
			}
			var out string
			rec, out = step(t, rec, ev)
			return out
		})
	})
}

// step applies one event, checks what every transition must satisfy, and renders the outcome.
func step(t *testing.T, rec Record, ev Event) (Record, string) {
	t.Helper()
	next, effects, err := Apply(rec, ev)
	if err != nil {
		checkRefusal(t, rec, ev, next, effects, err)
		return rec, "error: " + err.Error() + "\n"
	}
	checkEffects(t, next, effects)
	var b strings.Builder
	b.WriteString(next.String() + "\n")
	if len(effects) == 0 {
		b.WriteString("no effects\n")
	}
	for _, e := range effects {
		b.WriteString("- " + e.String() + "\n")
	}
	return next, b.String()
}

// checkEffects: a published status is the record's own and a rejection carries revision 0; both
// are valid on the wire.
func checkEffects(t *testing.T, rec Record, effects []Effect) {
	t.Helper()
	for _, e := range effects {
		switch e := e.(type) {
		case Publish:
			if e.Status != rec.Status() {
				t.Errorf("published %+v, but the record's status is %+v", e.Status, rec.Status())
			}
			if err := e.Status.Validate(); err != nil {
				t.Errorf("published an invalid status %+v: %v", e.Status, err)
			}
		case Reject:
			if err := e.Status.Validate(); err != nil {
				t.Errorf("an invalid rejection %+v: %v", e.Status, err)
			}
		}
	}
}

// checkRefusal: a refused event names the state and the event, and changes nothing.
func checkRefusal(t *testing.T, rec Record, ev Event, next Record, effects []Effect, err error) {
	t.Helper()
	var te *TransitionError
	if !errors.As(err, &te) || te.From != rec.State || te.On != ev.Kind() {
		t.Errorf("error %v is not a TransitionError from %s on %s", err, rec.State, ev.Kind())
	}
	if next != rec || effects != nil {
		t.Errorf("a refused %s changed the record to %v or had effects %v", ev.Kind(), next, effects)
	}
}

func refuseEach(t *testing.T, rec Record, input string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		cmd, args, err := datadriven.ParseLine(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		ev, err := parseEvent(cmd, args)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		next, _, err := Apply(rec, ev)
		if err == nil {
			t.Errorf("%s was accepted in %s", line, rec.State)
			fmt.Fprintf(&b, "%s: accepted: %s\n", line, next)
			continue
		}
		fmt.Fprintf(&b, "%s: %v\n", line, err)
	}
	return b.String()
}

// given drives a fresh record into a state by the ordinary path there.
func given(t *testing.T, s State, reused bool) Record {
	t.Helper()
	grant := PrepareAccepted{Now: epoch, Expiry: 5 * time.Minute, Handle: "h1", ExecutorID: "e1", Reused: reused, Hash: "p1"}
	start := StartRequested{Now: epoch.Add(time.Second), ExecutorID: "e1", RunID: "r1", Hash: "s1"}
	paths := map[State][]Event{
		None:      {},
		Preparing: {grant},
		Ready:     {grant, SetupSucceeded{}},
		Starting:  {grant, SetupSucceeded{}, start},
		Started:   {grant, SetupSucceeded{}, start, TurnStarted{}},
		Released:  {grant, ReleaseRequested{}},
		Expired:   {grant, SetupSucceeded{}, ExpiryFired{Now: epoch.Add(5 * time.Minute)}},
		Failed:    {grant, SetupFailed{}},
	}
	path, ok := paths[s]
	if !ok {
		t.Fatalf("no path to state %q", s)
	}
	var rec Record
	for _, ev := range path {
		if _, setup := ev.(SetupSucceeded); setup && reused {
			continue // a reused Executor needs no setup
		}
		next, _, err := Apply(rec, ev)
		if err != nil {
			t.Fatalf("given %s: %v", s, err)
		}
		rec = next
	}
	if rec.State != s {
		t.Fatalf("given %s: the path led to %s", s, rec.State)
	}
	return rec
}

// renderTable prints every row as "from on -> to", so a change of the table shows in a diff.
func renderTable() string {
	var b strings.Builder
	for _, tr := range transitions {
		to := make([]string, len(tr.to))
		for i, s := range tr.to {
			to[i] = s.String()
		}
		fmt.Fprintf(&b, "%-10s %-23s -> %s\n", tr.from, tr.on, strings.Join(to, " | "))
	}
	return b.String()
}
