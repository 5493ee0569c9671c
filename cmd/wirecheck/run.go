package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
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
		Short: "Play the catalog in every pairing the regression gate plays",
		Long: `run plays every selected scenario in each pairing of the gate (make check-runtime-contract):
the scripted Core against the scripted Runtime (the self-check: a scenario the two scripts disagree
on is broken), the scripted Core against the reference Runtime in process on a virtual clock and as
a child process (this binary's runtime command) in real time, and the scripted Runtime against the
reference Core. --label-filter sees the pairing's labels (self-check, runtime, process, core) beside
the scenario's. It prints one line per scenario and pairing and exits non-zero if anything did not
pass.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cat, err := sel.catalog()
			if err != nil {
				return err
			}
			opts, err := sel.options()
			if err != nil {
				return err
			}
			self, err := os.Executable()
			if err != nil {
				return err
			}
			if seed == "" {
				seed = runner.NewSeed()
			}
			pairings := runner.Pairings(self)
			for _, p := range pairings {
				if p.Close != nil {
					defer p.Close()
				}
			}
			var jobs []runner.Job
			var names []string
			skipped := 0
			for _, p := range pairings {
				for _, sc := range cat.Select(opts.Run, opts.Skip) {
					if !p.Covers(sc) || !opts.Labels.Match(append(append([]string{}, p.Labels...), sc.Labels...)) {
						continue
					}
					if p.Skip(sc) != "" {
						skipped++
						continue
					}
					jobs = append(jobs, runner.Job{Key: p.Name + "\x00" + sc.ID, Play: func(ctx context.Context) *scenarios.Result {
						ctx, cancel := context.WithTimeout(ctx, time.Minute)
						defer cancel()
						return p.Play(ctx, sc, seed)
					}})
					names = append(names, p.Name)
				}
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "seed %s: %d plays in %d pairings, %d at once\n", seed, len(jobs), len(pairings), parallel)
			var mu sync.Mutex
			bad := 0
			start := time.Now()
			ctx, span := runner.StartRunSpan(ctx, "the gate's pairings", seed, len(jobs))
			results := runner.StartBatch(ctx, jobs, parallel, func(i int, r *scenarios.Result) {
				mu.Lock()
				defer mu.Unlock()
				fmt.Fprintf(out, "%-13s %-40s %-72s %v\n", r.Verdict, names[i], r.Scenario, r.Duration.Round(time.Millisecond))
				if r.Verdict != scenarios.Pass {
					bad++
					fmt.Fprintln(out, indent(r.String()))
				}
			}).Results()
			runner.EndRunSpan(span, results)
			for i, r := range results {
				if r == nil {
					bad++
					fmt.Fprintf(out, "%-13s %-40s %s (interrupted before it ran)\n", scenarios.HarnessError, names[i], strings.SplitN(jobs[i].Key, "\x00", 2)[1])
				}
			}
			fmt.Fprintf(out, "%d plays (%d left to the in-process run) in %v; %d not passed\n", len(jobs), skipped, time.Since(start).Round(time.Millisecond), bad)
			if bad > 0 || ctx.Err() != nil {
				return &exitError{code: 1, err: fmt.Errorf("%d results did not pass", bad)}
			}
			return nil
		},
	}
	sel.flags(cmd)
	cmd.Flags().IntVar(&parallel, "parallel", 8, "scenario plays at once")
	cmd.Flags().StringVar(&seed, "seed", "", "seed for generated values (printed; give it back to reproduce a run)")
	root.AddCommand(cmd)
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
