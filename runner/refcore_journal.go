package runner

import (
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/reference/core/store"
	"github.com/wirecheck/wirecheck/scenarios"
)

// journalHolds answers check.journal from the journal the reference Core serves for the Turn of
// the Run: it waits while the Turn runs (the entry may still come) and fails once the Turn has
// ended without it.
func (d *refCoreDriver) journalHolds(c *scenarios.JournalCheck, b *scenarios.Bindings) (bool, string, error) {
	t, missing, err := d.turnOf(c.Run, b)
	if t == nil {
		return false, missing, err
	}
	evs, err := d.Core.Journal(t.ID)
	if err != nil {
		return false, "", fmt.Errorf("the journal of Turn %s: %w", t.ID, err)
	}
	for _, ev := range evs {
		if journalEntryMatches(c, ev) {
			return true, "", nil
		}
	}
	state := "no such entry among " + journalSummary(evs, c.Kind)
	if t.Outcome != nil {
		return false, state, fmt.Errorf("the Turn ended and its journal has %s", state)
	}
	return false, state, nil
}

func journalEntryMatches(c *scenarios.JournalCheck, ev store.Event) bool {
	return ev.Kind == c.Kind && (c.Type == "" || ev.Type == c.Type) && strings.Contains(ev.Note, c.Note)
}

// journalSummary lists the entries of one kind, for a failure message.
func journalSummary(evs []store.Event, kind string) string {
	var parts []string
	for _, ev := range evs {
		if ev.Kind != kind {
			continue
		}
		s := ev.Kind
		if ev.Type != "" {
			s += " " + ev.Type
		}
		if ev.Note != "" {
			s += fmt.Sprintf(" %q", ev.Note)
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "none of kind " + kind
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// turnOf is the Turn of a check's run: the Turn that Run ID names, or, when the Run ID is one
// Core chose but never sent (the Turn ended before start), the Turn this scenario started. A Turn
// not found is a reason the check does not hold yet, not an error.
func (d *refCoreDriver) turnOf(runTmpl scenarios.Value, b *scenarios.Bindings) (*store.Turn, string, error) {
	run, err := resolveString(runTmpl, b)
	if err != nil {
		return nil, "", err
	}
	var t *store.Turn
	if strings.Contains(run, "${") && d.turnID != "" {
		t, err = d.Core.Turn(d.turnID)
	} else {
		t, err = d.Core.TurnByRun(run)
	}
	if err != nil {
		return nil, fmt.Sprintf("no Turn for run %s", run), nil
	}
	return t, "", nil
}
