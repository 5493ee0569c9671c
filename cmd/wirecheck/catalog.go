package main

import (
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// selection is the scenario selection shared by list, run and certify.
type selection struct {
	catalogDir  string
	run, skip   []string
	labelFilter string
}

func (s *selection) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&s.catalogDir, "catalog", "", "load scenarios from this directory instead of the embedded catalog")
	f.StringSliceVar(&s.run, "run", nil, "scenario id patterns to run (e.g. admission, execution/*, cancellation/**)")
	f.StringSliceVar(&s.skip, "skip", nil, "scenario id patterns to skip")
	f.StringVar(&s.labelFilter, "label-filter", "", "Ginkgo label expression over scenario labels, e.g. 'preparation && !long-timer', 'cancellation, shutdown', '/^admission/'")
}

func (s *selection) catalog() (*scenarios.Catalog, error) {
	if s.catalogDir != "" {
		return scenarios.LoadDir(s.catalogDir)
	}
	return scenarios.Embedded()
}

// catalogFS is the files the catalog is loaded from.
func (s *selection) catalogFS() fs.FS {
	if s.catalogDir != "" {
		return os.DirFS(s.catalogDir)
	}
	return scenarios.EmbeddedFS()
}

func (s *selection) options() (runner.Options, error) {
	lf, err := runner.ParseLabelFilter(s.labelFilter)
	if err != nil {
		return runner.Options{}, err
	}
	return runner.Options{Run: s.run, Skip: s.skip, Labels: lf}, nil
}

func init() {
	var sel selection
	var all bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the catalog's scenarios (id, what they test, labels, title)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cat, err := sel.catalog()
			if err != nil {
				return err
			}
			opts, err := sel.options()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for _, sc := range cat.Select(opts.Run, opts.Skip) {
				if !opts.Labels.Match(sc.Labels) || (!all && !sc.Tests.Covers(scenarios.SideRuntime)) {
					continue
				}
				fmt.Fprintf(out, "%-72s %-7s %-28s %s\n", sc.ID, sc.Tests, strings.Join(sc.Labels, ","), sc.Title)
			}
			return nil
		},
	}
	sel.flags(cmd)
	cmd.Flags().BoolVar(&all, "all", false, "include scenarios that only test a Core")
	root.AddCommand(cmd)
}
