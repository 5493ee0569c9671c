package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/monitor"
	"github.com/wirecheck/wirecheck/proto"
)

func init() {
	var upstream, listen, jsonOut, capture, logLevel string
	cmd := &cobra.Command{
		Use:   "monitor --upstream CORE_URL",
		Short: "Watch the traffic between a real Core and real Runtimes and report every rule a frame breaks",
		Long: `monitor sits between a Core (--upstream, its base URL ending in /api/v1) and its Runtimes like
wirecheck relay, without faults: point the Runtimes at the URL it prints. It checks every frame in
both directions as it passes (shape, the correlation of replies with requests, transfer arithmetic,
the order of Run streams and preparation statuses, what must never cross a reconnection) and prints
each violation at once, naming the connection, the frame, the side that broke the rule and the
rule's ID. On SIGINT or SIGTERM it prints a summary; --json also writes every alarm to a file. It
exits 1 if any alarm was raised. --capture writes every frame to a file (JSON Lines) that wirecheck
record turns into a scenario. The credential passes through and is never logged (it travels in a
header, never in a frame).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			level, err := parseLevel(logLevel)
			if err != nil {
				return usageError(err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return runMonitor(ctx, cmd.OutOrStdout(), upstream, listen, jsonOut, capture,
				slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level})))
		},
	}
	f := cmd.Flags()
	f.StringVar(&upstream, "upstream", "", "Core's base URL, ending in /api/v1 (required)")
	f.StringVar(&listen, "listen", "127.0.0.1:0", "where to listen")
	f.StringVar(&jsonOut, "json", "", "write every alarm to this file as JSON when the monitor stops")
	f.StringVar(&capture, "capture", "", "write every frame to this file (JSON Lines), for wirecheck record")
	f.StringVar(&logLevel, "log-level", "warn", "debug, info, warn or error")
	_ = cmd.MarkFlagRequired("upstream")
	root.AddCommand(cmd)
}

// runMonitor serves until ctx ends, printing alarms to out as they are raised.
func runMonitor(ctx context.Context, out io.Writer, upstream, listen, jsonOut, capture string, log *slog.Logger) error {
	var mu sync.Mutex // out is shared by the live alarms and the summary
	mon := monitor.New(func(a monitor.Alarm) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(out, "ALARM", a)
	})
	var tap fault.Tap = mon
	var cap *monitor.Capture
	if capture != "" {
		fh, err := os.Create(capture)
		if err != nil {
			return usageError(err)
		}
		defer fh.Close()
		cap = monitor.NewCapture(fh)
		tap = tee{mon, cap}
	}
	r, err := fault.New(upstream, nil, fault.Options{Addr: listen, Logger: log, Tap: tap, Seed: 1})
	if err != nil {
		return usageError(err)
	}
	base, err := r.Start(ctx)
	if err != nil {
		return err
	}
	mu.Lock()
	fmt.Fprintf(out, "monitor %s -> %s\n", base, upstream)
	mu.Unlock()
	<-ctx.Done()
	r.Close()
	alarms := mon.Alarms()
	if alarms == nil {
		alarms = []monitor.Alarm{} // encodes as [], not null
	}
	mu.Lock()
	fmt.Fprint(out, monitorSummary(mon.Frames(), alarms))
	mu.Unlock()
	if jsonOut != "" {
		raw, err := json.MarshalIndent(struct {
			Frames int             `json:"frames"`
			Alarms []monitor.Alarm `json:"alarms"`
		}{mon.Frames(), alarms}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(jsonOut, append(raw, '\n'), 0o644); err != nil {
			return err
		}
	}
	if cap != nil {
		skipped, err := cap.Err()
		if err != nil {
			return fmt.Errorf("--capture: %w", err)
		}
		if skipped > 0 {
			fmt.Fprintf(out, "%d frames that were not JSON were left out of the capture\n", skipped)
		}
	}
	if len(alarms) > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d alarms", len(alarms))}
	}
	return nil
}

// monitorSummary counts the alarms by side and rule.
func monitorSummary(frames int, alarms []monitor.Alarm) string {
	counts := map[string]int{}
	for _, a := range alarms {
		counts[string(a.From)+" "+a.Rule]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	s := fmt.Sprintf("%d frames checked, %d alarms\n", frames, len(alarms))
	for _, k := range keys {
		s += fmt.Sprintf("  %s ×%d\n", k, counts[k])
	}
	return s
}

// tee hands every call to each tap in turn.
type tee []fault.Tap

func (t tee) Open(conn int, deviceID string) {
	for _, x := range t {
		x.Open(conn, deviceID)
	}
}

func (t tee) Frame(conn int, from proto.Peer, data []byte) {
	for _, x := range t {
		x.Frame(conn, from, data)
	}
}

func (t tee) Close(conn int) {
	for _, x := range t {
		x.Close(conn)
	}
}
