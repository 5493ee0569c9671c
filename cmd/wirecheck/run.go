package main

import (
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

func init() {
	var sel selection
	var parallel int
	var seed string
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Play the catalog with both reference sides: what the regression gate runs",
		Long: `run plays every selected scenario twice: the scripted Core against the scripted Runtime (the
self-check: a scenario the two scripts disagree on is broken) and the scripted Core against the
reference Runtime in process on a virtual clock. It prints one line per scenario and pairing and
exits non-zero if anything did not pass.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			cat, err := sel.catalog()
			if err != nil {
				return err
			}
			opts, err := sel.options()
			if err != nil {
				return err
			}
			if seed == "" {
				seed = runner.NewSeed()
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "seed %s\n", seed)
			bad := 0
			report := func(pairing string, r *scenarios.Result) {
				if r == nil {
					bad++
					fmt.Fprintf(out, "%-13s %-16s (no result)\n", "harness_error", pairing)
					return
				}
				fmt.Fprintf(out, "%-13s %-16s %-72s %v\n", r.Verdict, pairing, r.Scenario, r.Duration.Round(time.Millisecond))
				if r.Verdict != scenarios.Pass {
					bad++
					fmt.Fprintln(out, indent(r.String()))
				}
			}
			start := time.Now()
			var all []*scenarios.Scenario
			for _, sc := range cat.Select(opts.Run, opts.Skip) {
				if opts.Labels.Match(sc.Labels) {
					all = append(all, sc)
				}
			}
			for _, sc := range all {
				c, r := runner.SelfCheck(ctx, sc, seed)
				report("self-check/core", c)
				if runner.OnlyTurnChecksNotApplicable(sc, r) {
					// Turn checks ask Core for its records; the scripted Core keeps none, and every wire
					// step was still played by both scripts.
					r.Verdict = scenarios.Pass
				}
				report("self-check/rt", r)
			}
			opts.Seed, opts.Parallel = seed, parallel
			opts.Progress = func(r *scenarios.Result) { report("reference/rt", r) }
			runner.RunRuntime(ctx, runner.Select(cat, opts), runner.ReferenceRuntime{}, opts)
			fmt.Fprintf(out, "%d scenarios in %v; %d not passed\n", len(all), time.Since(start).Round(time.Millisecond), bad)
			if bad > 0 || ctx.Err() != nil {
				return &exitError{code: 1, err: fmt.Errorf("%d results did not pass", bad)}
			}
			return nil
		},
	}
	sel.flags(cmd)
	cmd.Flags().IntVar(&parallel, "parallel", 4, "scenarios at once against the reference Runtime")
	cmd.Flags().StringVar(&seed, "seed", "", "seed for generated values (printed; give it back to reproduce a run)")
	root.AddCommand(cmd)
}

func indent(s string) string {
	out := "    "
	for _, c := range s {
		out += string(c)
		if c == '\n' {
			out += "    "
		}
	}
	return out
}
