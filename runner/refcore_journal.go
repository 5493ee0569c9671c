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
	run, err := resolveString(c.Run, b)
	if err != nil {
		return false, "", err
	}
	var t *store.Turn
	if strings.Contains(run, "${") && d.turnID != "" {
		// A Run ID Core chose but never sent (the Turn ended before start): the Turn this
		// scenario started, as check.turn reads it.
		t, err = d.Core.Turn(d.turnID)
	} else {
		t, err = d.Core.TurnByRun(run)
	}
	if err != nil {
		return false, fmt.Sprintf("no Turn for run %s", run), nil
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
