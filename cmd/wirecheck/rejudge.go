package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

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

Exit status: 0 nothing differs; 1 some verdict differs; 3 usage error.`,
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
			differ, frames, matched := 0, 0, 0
			for _, f := range files {
				n, fr, m, err := rejudgeFile(out, args[0], f, cat)
				if err != nil {
					return err
				}
				differ, frames, matched = differ+n, frames+fr, matched+m
			}
			fmt.Fprintf(out, "%d journals rejudged: %d frames revalidated, %d matched against the catalog; %d %s differ\n",
				len(files), frames, matched, differ, plural(differ, "verdict", "verdicts"))
			if differ > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d %s differ from the recorded run", differ, plural(differ, "verdict", "verdicts"))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&sel.catalogDir, "catalog", "", "rejudge with the scenarios of this directory instead of the embedded catalog")
	root.AddCommand(cmd)
}

// rejudgeFile rejudges one journal, printing each difference as "FILE: record N: what".
func rejudgeFile(out interface{ Write([]byte) (int, error) }, bundle, path string, cat *scenarios.Catalog) (differ, frames, matched int, err error) {
	rel, _ := filepath.Rel(bundle, path)
	rel = filepath.ToSlash(rel)
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, 0, err
	}
	if probs := journal.Verify(rel, data, nil); len(probs) > 0 {
		fmt.Fprintf(out, "warning: %s (rejudged all the same)\n", probs[0].Error())
	}
	recs, err := journal.Read(bytes.NewReader(data))
	if err != nil {
		fmt.Fprintf(out, "%s: %v\n", rel, err)
		return 1, 0, 0, nil
	}
	r := journal.Rejudge(recs, cat)
	for _, d := range r.Differences {
		fmt.Fprintf(out, "%s: record %d: %s\n", rel, d.Record, d.What)
	}
	return len(r.Differences), r.Frames, r.Matched, nil
}
