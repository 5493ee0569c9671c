package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	_ "github.com/wirecheck/wirecheck/fault" // decodes fault steps as the catalog loads, so lint checks their rules
	"github.com/wirecheck/wirecheck/scenarios"
)

func init() {
	root.AddCommand(&cobra.Command{
		Use:   "lint [DIR]",
		Short: "Check scenario files and report every error of every file, with file:line",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var cat *scenarios.Catalog
			var err error
			if len(args) == 1 {
				cat, err = scenarios.LoadDir(args[0])
			} else {
				cat, err = scenarios.Embedded()
			}
			var errs scenarios.LoadErrors
			if errors.As(err, &errs) {
				for _, e := range errs {
					fmt.Fprintln(cmd.ErrOrStderr(), e)
				}
				return &exitError{code: 1, err: fmt.Errorf("%d problems", errs.Total())}
			}
			if err != nil {
				return err
			}
			if rerrs := scenarios.LintRules(cat); len(rerrs) > 0 {
				for _, e := range rerrs {
					fmt.Fprintln(cmd.ErrOrStderr(), e)
				}
				return &exitError{code: 1, err: fmt.Errorf("%d problems", rerrs.Total())}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d scenarios, no problems\n", len(cat.Scenarios))
			return nil
		},
	})
}
