package main

import (
	"fmt"
	"log/slog"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/fault"
)

func init() {
	var upstream, listen, schedule, seed, logLevel string
	cmd := &cobra.Command{
		Use:   "relay",
		Short: "Serve the fault relay between a Runtime and a Core, applying a fault schedule",
		Long: `relay listens in front of a Core (--upstream, its base URL ending in /api/v1): point a Runtime
at the URL it prints instead of Core's. Bootstrap and the upgrade pass through (the credential
header included, never logged); every envelope in both directions is matched against the schedule
(docs/fault-injection.md). Every random choice comes from the seed, which is printed: give it back
with --seed to reproduce a run. It runs until SIGINT or SIGTERM.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			level, err := parseLevel(logLevel)
			if err != nil {
				return err
			}
			var sched *fault.Schedule
			if schedule != "" {
				if sched, err = fault.LoadFile(schedule); err != nil {
					return err
				}
			}
			var n uint64
			if seed != "" {
				if n, err = strconv.ParseUint(seed, 10, 64); err != nil {
					return fmt.Errorf("--seed %q: want an unsigned integer", seed)
				}
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			r, err := fault.New(upstream, sched, fault.Options{Seed: n, Addr: listen, Logger: log})
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			base, err := r.Start(ctx)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "relay %s -> %s (seed %d)\n", base, upstream, r.Seed())
			<-ctx.Done()
			r.Close()
			for _, e := range r.Events() {
				fmt.Fprintln(cmd.OutOrStdout(), e.String())
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&upstream, "upstream", "", "Core's base URL, ending in /api/v1 (required)")
	f.StringVar(&listen, "listen", "127.0.0.1:0", "where to listen")
	f.StringVar(&schedule, "schedule", "", "a fault schedule file")
	f.StringVar(&seed, "seed", "", "seed for every random choice (default: the schedule's, else random and printed)")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	_ = cmd.MarkFlagRequired("upstream")
	root.AddCommand(cmd)
}
