package main

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/certify"
	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/monitor"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

func init() {
	var runtimeCmd, pubkey, seed string
	var env []string
	var reference bool
	var run []string
	cmd := &cobra.Command{
		Use:   "replay BUNDLE (--runtime-cmd CMD | --reference)",
		Short: "Drive a daemon with the Core frames a certification recorded, and report where it first answers otherwise",
		Long: `replay reads the journals of an evidence bundle (wirecheck certify --bundle) and plays each recorded
conversation again against a daemon: Core's frames exactly as they were sent (values Core chose
kept), the daemon's expected as they were received, except the values the daemon chose, which
bind afresh (handles, executors, expiries; heartbeats are left to the player), and the clock moved
where the original moved it. For each journal
it prints "same" or the first divergence: the step, the frame expected and the frame received.

It replays only what a journal alone can drive: one connection played by wirecheck as Core, every
frame JSON; others are listed as not replayable with the reason. Against a daemon in another
process the clock is real: a move of the original's virtual clock (an admission's five-minute
expiry) is waited for. What the original did between frames other than move its clock (a settle
window, a silence, a check of Core's records) is not in a journal and is not replayed. Every journal is verified first (--pubkey also checks its signature); one that
does not verify is not replayed.

Exit status: 0 every replayable journal replays the same; 1 one diverges; 3 usage error.`,
		Example: `  wirecheck certify --reference --bundle evidence
  wirecheck replay evidence --runtime-cmd './mydaemon --core {core_url} --device {device_id}'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.ExactArgs(1)(cmd, args); err != nil {
				return usageError(err)
			}
			if (runtimeCmd == "") == !reference {
				return usageError(fmt.Errorf("give exactly one target: --runtime-cmd or --reference"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			pub, err := readPublicKey(pubkey)
			if err != nil {
				return usageError(err)
			}
			cat, err := scenarios.Embedded()
			if err != nil {
				return err
			}
			replays, skipped, err := replayable(args[0], pub, run, cat)
			if err != nil {
				return usageError(err)
			}
			out := cmd.OutOrStdout()
			for _, s := range skipped {
				fmt.Fprintf(out, "not replayable  %s\n", s)
			}
			if len(replays) == 0 {
				return usageError(fmt.Errorf("%s holds no replayable journal", args[0]))
			}
			played, lerrs := scenarios.Link(replays)
			if lerrs != nil {
				return fmt.Errorf("the replays do not link: %w", lerrs)
			}
			var target runner.Target = runner.ReferenceRuntime{}
			if !reference {
				opts := runner.DaemonOptions{}
				var perr error
				opts.Env, opts.PassEnv, perr = parseEnv(env)
				if perr != nil {
					return usageError(perr)
				}
				t, err := runner.Command(runtimeCmd, opts)
				if err != nil {
					return usageError(err)
				}
				defer t.Close()
				target = t
			}
			res, err := certify.Run(cmd.Context(), certify.Config{Target: target, Catalog: played, Seed: seed})
			if err != nil {
				return err
			}
			return reportReplays(out, res.Cases)
		},
	}
	f := cmd.Flags()
	f.StringVar(&runtimeCmd, "runtime-cmd", "", "the daemon's command line; {core_url} and {device_id} are filled in")
	f.StringSliceVar(&env, "env", nil, "NAME=VALUE or NAME (passed from this environment) for the daemon, repeatable")
	f.BoolVar(&reference, "reference", false, "replay against the reference Runtime in process")
	f.StringVar(&pubkey, "pubkey", "", "the ed25519 public key every journal's anchor must be signed by")
	f.StringSliceVar(&run, "run", nil, "scenario id patterns of the journals to replay (default: all)")
	f.StringVar(&seed, "seed", "replay", "seed of the values the player generates")
	root.AddCommand(cmd)
}

// replayable turns every journal of the bundle that one connection played as Core into a scenario
// replay/<id>, and says why each other one is not replayable.
func replayable(bundle string, pub ed25519.PublicKey, run []string, cat *scenarios.Catalog) (replays []*scenarios.Scenario, skipped []string, err error) {
	files, err := filepath.Glob(filepath.Join(bundle, "journals", "*.jsonl"))
	if err != nil || len(files) == 0 {
		return nil, nil, fmt.Errorf("%s: no journals/*.jsonl (an evidence bundle of wirecheck certify --bundle)", bundle)
	}
	slices.Sort(files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, err
		}
		if probs := journal.Verify(file, data, pub); len(probs) > 0 {
			skipped = append(skipped, fmt.Sprintf("%s: it does not verify: %v", file, probs[0]))
			continue
		}
		recs, err := journal.Read(bytes.NewReader(data))
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", file, err))
			continue
		}
		h := recs[0].Header
		if len(run) > 0 && !slices.ContainsFunc(run, func(p string) bool { return scenarios.MatchID(p, h.Scenario) }) {
			continue
		}
		sc, why := replayOf(h, recs, cat)
		if why != "" {
			skipped = append(skipped, fmt.Sprintf("%s: %s", h.Scenario, why))
			continue
		}
		replays = append(replays, sc)
	}
	return replays, skipped, nil
}

// replayOf is the scenario that sends a journal's Core frames again, or why there is none. The
// original scenario, when the catalog still holds it, lends the replay its capability profile.
func replayOf(h *journal.Header, recs []journal.Record, cat *scenarios.Catalog) (*scenarios.Scenario, string) {
	if h.Played != string(scenarios.SideCore) {
		return nil, "wirecheck played the Runtime in it: replay drives a daemon"
	}
	for _, r := range recs {
		if r.Kind == journal.KindFault {
			// The journal holds what the scripted Core sent; the relay changed what the daemon
			// received (a drop, a duplicate, a corruption), and the replay has no relay.
			return nil, "a fault relay changed its frames on the way (" + r.Event.Note + ")"
		}
	}
	var frames []monitor.Captured
	conns := map[int]bool{} // the connections that carried more than heartbeats
	for _, r := range recs {
		if r.Kind == journal.KindClock && r.Event != nil && r.Event.Name == "advance" {
			frames = append(frames, monitor.Captured{Advance: r.Event.Note})
			continue
		}
		if r.Frame == nil {
			continue
		}
		if r.Frame.Type != proto.TypeHeartbeat {
			conns[r.Frame.Conn] = true
		}
		from := proto.Core
		if strings.HasPrefix(r.Frame.Dir, string(proto.Runtime)) {
			from = proto.Runtime
		}
		frames = append(frames, monitor.Captured{Conn: r.Frame.Conn, From: from, Frame: []byte(r.Frame.Raw)})
	}
	switch {
	case len(conns) == 0:
		return nil, "it holds no frame but heartbeats (a handshake refusal, or a check of the first heartbeat)"
	case len(conns) > 1:
		return nil, fmt.Sprintf("its conversation spans %d connections (a reconnection is not replayed)", len(conns))
	}
	for conn := range conns { // a daemon that dialled again after the end sent only its heartbeat
		frames = slices.DeleteFunc(frames, func(f monitor.Captured) bool { return f.Advance == "" && f.Conn != conn })
	}
	yml, err := monitor.RecordWith("replay/"+h.Scenario, "replay of "+h.Scenario, frames, monitor.RecordOptions{Literal: proto.Core, Unordered: true})
	if err != nil {
		return nil, err.Error()
	}
	scs, err := scenarios.Parse("replay/"+h.Scenario+".yaml", yml)
	if err != nil {
		return nil, "its frames make no scenario: " + err.Error()
	}
	if orig, ok := cat.Get(h.Scenario); ok {
		scs[0].Requires, scs[0].Excludes = orig.Requires, orig.Excludes
	}
	return scs[0], ""
}

// reportReplays prints one line per replay and fails if one diverged.
func reportReplays(out io.Writer, cases []reports.Case) error {
	diverged, same := 0, 0
	for _, c := range cases {
		r := c.Result
		id := strings.TrimPrefix(r.Scenario, "replay/")
		switch r.Verdict {
		case scenarios.Pass:
			same++
			fmt.Fprintf(out, "same            %s\n", id)
			continue
		case scenarios.NotApplicable:
			why := ""
			if r.Failure != nil {
				why = ": " + r.Failure.Message
			}
			fmt.Fprintf(out, "not applicable  %s%s\n", id, why)
			continue
		}
		diverged++
		fmt.Fprintf(out, "diverges        %s (%s)\n", id, r.Verdict)
		if f := r.Failure; f != nil {
			fmt.Fprintf(out, "  at step %d, %s: %s\n", f.Step, f.StepDesc, f.Message)
			if f.Diff != "" {
				fmt.Fprintf(out, "  %s\n", strings.ReplaceAll(strings.TrimRight(f.Diff, "\n"), "\n", "\n  "))
			}
		}
	}
	fmt.Fprintf(out, "%d of %d replays the same, %d diverge\n", same, len(cases), diverged)
	if diverged > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d %s", diverged, plural(diverged, "replay diverged", "replays diverged"))}
	}
	return nil
}
