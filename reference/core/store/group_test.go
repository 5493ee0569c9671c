package store_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// TestGroupCommitIsolatesAFailedWrite runs many writes at once, so that they share transactions
// (group.go): the writes that fail (a Turn created twice, an outcome written twice) return their
// own error and take nothing of the others with them, and every journal keeps its sequence.
func TestGroupCommitIsolatesAFailedWrite(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "core.db"))
	defer s.Close()
	const n = 16
	var wg sync.WaitGroup
	created, finished := make([]error, n), make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			created[i] = s.CreateTurn(nil, &store.Turn{ID: "dup", RunID: fmt.Sprintf("run-%d", i), Input: proto.TextInput("x")})
			for j := range 8 {
				if _, err := s.Append(fmt.Sprintf("turn-%d", i), store.Event{Kind: store.EventNote, Note: fmt.Sprint(j)}); err != nil {
					t.Error(err)
				}
			}
			_, finished[i] = s.Finish("dup", &store.Outcome{Status: proto.TurnCompleted})
		}()
	}
	wg.Wait()
	count := func(errs []error, target error) (ok, failed int) {
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, target):
				failed++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		return ok, failed
	}
	if ok, dup := count(created, store.ErrExists); ok != 1 || dup != n-1 {
		t.Errorf("CreateTurn of one ID: %d succeeded, %d ErrExists; want 1 and %d", ok, dup, n-1)
	}
	if ok, twice := count(finished, store.ErrTerminal); ok != 1 || twice != n-1 {
		t.Errorf("Finish of one Turn: %d succeeded, %d ErrTerminal; want 1 and %d", ok, twice, n-1)
	}
	for i := range n {
		evs, err := s.Journal(fmt.Sprintf("turn-%d", i))
		if err != nil || len(evs) != 8 {
			t.Fatalf("journal of turn-%d: %d events, %v", i, len(evs), err)
		}
		for j, ev := range evs {
			if ev.Seq != uint64(j+1) || ev.Note != fmt.Sprint(j) {
				t.Errorf("turn-%d event %d: seq %d note %q", i, j, ev.Seq, ev.Note)
			}
		}
	}
}

// TestClosedStoreRefusesWrites: a write after Close fails instead of hanging, and a second Close
// is harmless.
func TestClosedStoreRefusesWrites(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "core.db"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append("turn", store.Event{Kind: store.EventNote}); err == nil {
		t.Error("Append after Close succeeded")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
