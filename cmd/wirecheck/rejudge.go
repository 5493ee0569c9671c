package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/scenarios"
)

func init() {
	var sel selection
	cmd := &cobra.Command{
		Use:   "rejudge BUNDLE",
		Short: "Recompute the verdicts of an evidence bundle from its journals alone, with the current validators and catalog",
		Long: `rejudge reads every journal of an evidence bundle (journals/*.jsonl, docs/journal.md) and, without
any daemon, recomputes (1) the proto validator's verdict on every recorded frame and (2) each
scenario's expected frames from the current catalog, matched in order against the recorded frames
of the peer under test, with placeholders bound from the frames wirecheck sent. It lists every
verdict that differs from the recorded one: a regression test of the suite on recorded traffic.
Timing (silence windows, deadlines) is not rejudged. A journal whose chain is broken is rejudged
all the same, after a warning (` + "`wirecheck verify`" + ` says what is wrong).

A run recorded as not applicable played no step: its frames are revalidated, its verdict stays.
A run recorded as failing (or inconclusive, or a harness error) ended at its failure: what it
never recorded is not held against it, only the frames it recorded are matched, up to the
failing step; a daemon that failed before the first step leaves nothing to match.

Exit status:
  0  nothing differs
  1  some verdict differs, or a journal cannot be read as one (each is listed)
  3  usage error: no bundle, a bad flag or --catalog`,
		Example: `  wirecheck rejudge evidence
  wirecheck rejudge evidence --catalog scenarios/catalog`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.ExactArgs(1)(cmd, args); err != nil {
				return usageError(err)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, err := sel.catalog()
			if err != nil {
				return usageError(err)
			}
			files, _ := filepath.Glob(filepath.Join(args[0], journal.BundleDir, "*.jsonl"))
			if len(files) == 0 {
				return usageError(fmt.Errorf("%s: no %s/*.jsonl: not a bundle with journals", args[0], journal.BundleDir))
			}
			out := cmd.OutOrStdout()
			var t rejudgeTally
			for _, f := range files {
				t.add(rejudgeFile(out, args[0], f, cat))
			}
			fmt.Fprintln(out, t.summary(len(files)))
			if t.differ+t.unreadable > 0 {
				return &exitError{code: 1, err: errors.New(t.problem())}
			}
			return nil
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	cmd.Flags().StringVar(&sel.catalogDir, "catalog", "", "rejudge with the scenarios of this directory instead of the embedded catalog")
	root.AddCommand(cmd)
}

// rejudgeFile rejudges one journal, printing each difference as "FILE: record N: what"; a
// journal that cannot be read as one is printed as "FILE: why" and has no result.
func rejudgeFile(out io.Writer, bundle, path string, cat *scenarios.Catalog) *journal.Rejudged {
	rel, _ := filepath.Rel(bundle, path)
	rel = filepath.ToSlash(rel)
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(out, "%s: cannot be read: %v\n", rel, err)
		return nil
	}
	if probs := journal.Verify(rel, data, nil); len(probs) > 0 {
		fmt.Fprintf(out, "warning: %s (rejudged all the same)\n", probs[0].Error())
	}
	recs, err := journal.Read(bytes.NewReader(data))
	if err != nil {
		fmt.Fprintf(out, "%s: not a journal: %v\n", rel, err)
		return nil
	}
	r := journal.Rejudge(recs, cat)
	for _, d := range r.Differences {
		fmt.Fprintf(out, "%s: record %d: %s\n", rel, d.Record, d.What)
	}
	return &r
}

// rejudgeTally counts what the journals of a bundle came to.
type rejudgeTally struct {
	frames, matched, differ, unreadable int
	notApplicable                       int // recorded not applicable: no step was played, none is rejudged
	failedAlike                         int // recorded not passing, and rejudged alike up to where the run ended
}

func (t *rejudgeTally) add(r *journal.Rejudged) {
	if r == nil {
		t.unreadable++
		return
	}
	t.frames, t.matched, t.differ = t.frames+r.Frames, t.matched+r.Matched, t.differ+len(r.Differences)
	switch {
	case r.Now == journal.NowNotApplicable:
		t.notApplicable++
	case r.Recorded != string(scenarios.Pass) && len(r.Differences) == 0:
		t.failedAlike++
	}
}

// summary is the last line: what was rejudged, what was kept as recorded and why, what differs.
func (t *rejudgeTally) summary(journals int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s rejudged: %d %s revalidated, %d matched against the catalog's steps",
		journals, plural(journals, "journal", "journals"), t.frames, plural(t.frames, "frame", "frames"), t.matched)
	if t.notApplicable > 0 {
		fmt.Fprintf(&b, "; %d recorded not applicable (no step played, none rejudged)", t.notApplicable)
	}
	if t.failedAlike > 0 {
		fmt.Fprintf(&b, "; %d recorded as not passing rejudged alike, up to where each run ended", t.failedAlike)
	}
	if t.differ+t.unreadable == 0 {
		b.WriteString("; nothing differs")
	} else {
		b.WriteString("; " + t.problem())
	}
	return b.String()
}

func (t *rejudgeTally) problem() string {
	var parts []string
	if t.differ > 0 {
		parts = append(parts, fmt.Sprintf("%d %s from the recorded run", t.differ, plural(t.differ, "verdict differs", "verdicts differ")))
	}
	if t.unreadable > 0 {
		parts = append(parts, fmt.Sprintf("%d %s cannot be read as one", t.unreadable, plural(t.unreadable, "journal", "journals")))
	}
	return strings.Join(parts, ", ")
}
