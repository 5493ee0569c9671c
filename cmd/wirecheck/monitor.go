package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/monitor"
	"github.com/wirecheck/wirecheck/proto"
)

func init() {
	var upstream, listen, jsonOut, capture, journalOut, signKey, logLevel string
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
record turns into a scenario. --journal writes the conversation as a hash-chained journal
(docs/journal.md): every frame with its direction, connection, sequence and validator verdict,
every connection's open and end, every alarm; its anchor is signed with --sign-key, and
wirecheck verify FILE checks it. The credential passes through and is never logged (it travels in a
header, never in a frame).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			level, err := parseLevel(logLevel)
			if err != nil {
				return usageError(err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			var key ed25519.PrivateKey
			if signKey != "" {
				if journalOut == "" {
					return usageError(errors.New("--sign-key signs the journal: give --journal too"))
				}
				if key, err = readSignKey(signKey); err != nil {
					return usageError(err)
				}
			}
			return runMonitor(ctx, cmd.OutOrStdout(), monitorConfig{upstream: upstream, listen: listen, jsonOut: jsonOut,
				capture: capture, journal: journalOut, key: key,
				log: slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))})
		},
	}
	f := cmd.Flags()
	f.StringVar(&upstream, "upstream", "", "Core's base URL, ending in /api/v1 (required)")
	f.StringVar(&listen, "listen", "127.0.0.1:0", "where to listen")
	f.StringVar(&jsonOut, "json", "", "write every alarm to this file as JSON when the monitor stops")
	f.StringVar(&capture, "capture", "", "write every frame to this file (JSON Lines), for wirecheck record")
	f.StringVar(&journalOut, "journal", "", "write the conversation and its alarms to this hash-chained journal (docs/journal.md)")
	f.StringVar(&signKey, "sign-key", "", "sign the journal's anchor with this ed25519 private key (PEM PKCS #8)")
	f.StringVar(&logLevel, "log-level", "warn", "debug, info, warn or error")
	_ = cmd.MarkFlagRequired("upstream")
	root.AddCommand(cmd)
}

// monitorConfig is what wirecheck monitor was asked to do.
type monitorConfig struct {
	upstream, listen, jsonOut, capture, journal string
	key                                         ed25519.PrivateKey
	log                                         *slog.Logger
}

// runMonitor serves until ctx ends, printing alarms to out as they are raised.
func runMonitor(ctx context.Context, out io.Writer, cfg monitorConfig) error {
	upstream, listen, jsonOut, capture, log := cfg.upstream, cfg.listen, cfg.jsonOut, cfg.capture, cfg.log
	var jt *journalTap
	if cfg.journal != "" {
		fh, err := os.Create(cfg.journal)
		if err != nil {
			return usageError(err)
		}
		defer fh.Close()
		if jt, err = newJournalTap(fh); err != nil {
			return err
		}
	}
	var mu sync.Mutex // out is shared by the live alarms and the summary
	mon := monitor.New(func(a monitor.Alarm) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(out, "ALARM", a)
		if jt != nil {
			jt.alarm(a)
		}
	})
	var tap fault.Tap = mon
	if jt != nil {
		tap = tee{jt, mon} // the frame is journalled before the alarm it raises
	}
	var cap *monitor.Capture
	if capture != "" {
		fh, err := os.Create(capture)
		if err != nil {
			return usageError(err)
		}
		defer fh.Close()
		cap = monitor.NewCapture(fh)
		tap = tee{tap, cap}
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
	if jt != nil {
		if err := jt.close(cfg.key); err != nil {
			return fmt.Errorf("--journal: %w", err)
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

// journalTap writes what the monitor sees as a journal (docs/journal.md): the same records a
// certification's journals hold, for a conversation wirecheck did not take part in.
type journalTap struct {
	mu    sync.Mutex
	w     *journal.Writer
	start time.Time
	seq   map[int]map[proto.Peer]int // per connection and direction
	err   error
}

func newJournalTap(w io.Writer) (*journalTap, error) {
	start := time.Now()
	jw, err := journal.NewWriter(w, journal.Header{Wire: proto.Version, Clock: "real", Tool: "wirecheck monitor " + buildVersion(),
		Scenario: "monitor", Title: "a conversation watched by wirecheck monitor", Played: "none", Started: start.UTC().Format(time.RFC3339)})
	if err != nil {
		return nil, err
	}
	return &journalTap{w: jw, start: start, seq: map[int]map[proto.Peer]int{}}, nil
}

func (j *journalTap) append(r journal.Record) {
	now := time.Now()
	r.Mono, r.Wall = now.Sub(j.start).Nanoseconds(), journal.WallTime(now)
	if j.err == nil {
		j.err = j.w.Append(&r)
	}
}

func (j *journalTap) Open(conn int, deviceID string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq[conn] = map[proto.Peer]int{}
	j.append(journal.Record{Kind: journal.KindConnection, Event: &journal.Event{Name: "open", Note: fmt.Sprintf("connection %d of device %q", conn, deviceID)}})
}

func (j *journalTap) Frame(conn int, from proto.Peer, data []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.seq[conn] == nil {
		j.seq[conn] = map[proto.Peer]int{}
	}
	j.seq[conn][from]++
	raw := string(data)
	var env struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	typ := "(not an envelope)"
	if json.Unmarshal(data, &env) == nil && env.Type != "" {
		typ = env.Type
	}
	j.append(journal.Record{Kind: journal.KindFrame, Frame: &journal.Frame{Dir: string(from) + "→" + string(from.Other()), Conn: conn,
		Seq: j.seq[conn][from], Type: typ, ID: env.ID, Raw: raw, Verdict: journal.Validate(raw)}})
}

func (j *journalTap) Close(conn int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.append(journal.Record{Kind: journal.KindConnection, Event: &journal.Event{Name: "close", Note: fmt.Sprintf("connection %d", conn)}})
}

func (j *journalTap) alarm(a monitor.Alarm) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.append(journal.Record{Kind: journal.KindEvent, Event: &journal.Event{Name: "alarm " + a.Rule, Note: a.String()}})
}

func (j *journalTap) close(key ed25519.PrivateKey) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	return j.w.Close(key)
}
