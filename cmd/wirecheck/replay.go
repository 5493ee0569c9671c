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
where the original moved it. For each journal it prints one line:

  same               recorded passing; the daemon answered every frame as recorded
  fails as recorded  recorded failing; the daemon answered every frame as recorded, up to where
                     the recorded run failed (that failure is printed beneath; what the original
                     then waited for in vain is not awaited again: timing is not replayed)
  ends as recorded   the same for a run recorded inconclusive or as a harness error
  diverges           the daemon answered otherwise: the recorded verdict, then the replay's step,
                     the frame expected and the frame received
  not applicable     the daemon does not declare a capability the original scenario requires
  not replayable     with the reason; the recorded verdict is kept

It replays only what a journal alone can drive: one connection played by wirecheck as Core, every
frame JSON, no frame changed by a fault relay on the way, no stall of Core's reading; a run
recorded as not applicable played nothing, and a run that ended before its first frame holds
nothing to replay. Against a daemon in another process the clock is real: a move of the
original's virtual clock (an admission's five-minute expiry) is waited for. What the original
did between frames other than move its clock (a settle window, a silence, a check of Core's
records) is not in a journal and is not replayed. Every journal is verified first (--pubkey also
checks its signature); one that does not verify is not replayed.

Exit status:
  0  every replayed journal answered as recorded (same, or fails as recorded), or was not
     applicable; also when the bundle holds nothing replayable (the reasons are printed)
  1  some replay diverges
  2  harness error: a replay could not be played (the suite or the machine failed)
  3  usage or configuration error, found before the first replay: not a bundle, a bad flag, a
     --run pattern that matches no journal, a daemon command that is not an executable`,
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
			replays, recorded, skipped, err := replayable(args[0], pub, run, cat)
			if err != nil {
				return usageError(err)
			}
			out := cmd.OutOrStdout()
			for _, s := range skipped {
				fmt.Fprintf(out, "%-*s %s\n", replayColumn, "not replayable", s)
			}
			if len(replays) == 0 {
				fmt.Fprintf(out, "nothing to replay: none of the %d %s of %s is replayable (each reason is above)\n",
					len(skipped), plural(len(skipped), "journal", "journals"), args[0])
				return nil
			}
			played, lerrs := scenarios.Link(replays)
			if lerrs != nil {
				return &exitError{code: 2, err: fmt.Errorf("harness error: the replays do not link: %w", lerrs)}
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
				return usageError(err) // found before the first replay (the daemon's command, say), as certify's
			}
			return reportReplays(out, res.Cases, recorded, len(skipped))
		},
	}
	f := cmd.Flags()
	f.StringVar(&runtimeCmd, "runtime-cmd", "", "the daemon's command line; {core_url} and {device_id} are filled in")
	f.StringSliceVar(&env, "env", nil, "NAME=VALUE or NAME (passed from this environment) for the daemon, repeatable")
	f.BoolVar(&reference, "reference", false, "replay against the reference Runtime in process")
	f.StringVar(&pubkey, "pubkey", "", "the ed25519 public key every journal's anchor must be signed by")
	f.StringSliceVar(&run, "run", nil, "scenario id patterns of the journals to replay (default: all)")
	f.StringVar(&seed, "seed", "replay", "seed of the values the player generates")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	root.AddCommand(cmd)
}

// replayColumn is the width of the first column of replay's lines (its longest word, "fails as
// recorded").
const replayColumn = len("fails as recorded")

// replayable turns every journal of the bundle that one connection played as Core into a scenario
// replay/<id>, keeps its recorded verdict by id, and says why each other one is not replayable.
// Every --run pattern must match a journal.
func replayable(bundle string, pub ed25519.PublicKey, run []string, cat *scenarios.Catalog) (replays []*scenarios.Scenario, recorded map[string]*journal.Assertion, skipped []string, err error) {
	files, err := filepath.Glob(filepath.Join(bundle, "journals", "*.jsonl"))
	if err != nil || len(files) == 0 {
		return nil, nil, nil, fmt.Errorf("%s: no journals/*.jsonl (an evidence bundle of wirecheck certify --bundle)", bundle)
	}
	slices.Sort(files)
	recorded = map[string]*journal.Assertion{}
	matched := make([]bool, len(run))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, nil, err
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
		if len(run) > 0 {
			hit := false
			for i, p := range run {
				if scenarios.MatchID(p, h.Scenario) {
					matched[i], hit = true, true
				}
			}
			if !hit {
				continue
			}
		}
		sc, why := replayOf(h, recs, cat)
		if why != "" {
			skipped = append(skipped, fmt.Sprintf("%s: %s", h.Scenario, why))
			continue
		}
		replays = append(replays, sc)
		recorded[h.Scenario] = assertionOf(recs)
	}
	for i, ok := range matched {
		if !ok {
			return nil, nil, nil, fmt.Errorf("--run %q matches no journal of %s", run[i], bundle)
		}
	}
	return replays, recorded, skipped, nil
}

// assertionOf is a journal's recorded verdict (nil if it has none).
func assertionOf(recs []journal.Record) *journal.Assertion {
	for _, r := range slices.Backward(recs) {
		if r.Assertion != nil {
			return r.Assertion
		}
	}
	return nil
}

// replayOf is the scenario that sends a journal's Core frames again, or why there is none. The
// original scenario, when the catalog still holds it, lends the replay its capability profile.
func replayOf(h *journal.Header, recs []journal.Record, cat *scenarios.Catalog) (*scenarios.Scenario, string) {
	if h.Played != string(scenarios.SideCore) {
		return nil, "wirecheck played the Runtime in it: replay drives a daemon"
	}
	a := assertionOf(recs)
	if a != nil && a.Verdict == string(scenarios.NotApplicable) {
		return nil, "recorded not applicable, so nothing was played: " + strings.TrimPrefix(firstLine(a.Message), "not applicable: ")
	}
	for _, r := range recs {
		if why := unreplayedFault(r); why != "" {
			return nil, why
		}
	}
	var frames []monitor.Captured
	conns := map[int]bool{} // the connections that carried more than heartbeats
	anyFrame := false
	for _, r := range recs {
		if r.Kind == journal.KindClock && r.Event != nil && r.Event.Name == "advance" {
			frames = append(frames, monitor.Captured{Advance: r.Event.Note})
			continue
		}
		if r.Frame == nil {
			continue
		}
		anyFrame = true
		if r.Frame.Type != proto.TypeHeartbeat {
			conns[r.Frame.Conn] = true
		}
		from := proto.Core
		if strings.HasPrefix(r.Frame.Dir, string(proto.Runtime)) {
			from = proto.Runtime
		}
		frames = append(frames, monitor.Captured{Conn: r.Frame.Conn, From: from, Frame: []byte(r.Frame.Raw)})
	}
	failed := a != nil && a.Verdict != string(scenarios.Pass)
	switch {
	case len(conns) == 0 && failed && !anyFrame:
		return nil, fmt.Sprintf("the recorded run ended (%s) before any frame: %s", a.Verdict, firstLine(a.Message))
	case len(conns) == 0 && failed:
		return nil, fmt.Sprintf("it holds no frame but heartbeats: the recorded run ended there (%s): %s", a.Verdict, firstLine(a.Message))
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
		scs[0].Requires, scs[0].Excludes, scs[0].UnavailableKinds = orig.Requires, orig.Excludes, orig.UnavailableKinds
	}
	return scs[0], ""
}

// unreplayedFault is why a fault record makes its journal not replayable, or "" if it does not:
// the journal holds what the scripted Core sent and read, and the replay neither has a relay nor
// stalls its reading. A fault only armed, that the relay never applied, changed nothing.
func unreplayedFault(r journal.Record) string {
	if r.Kind != journal.KindFault || r.Event == nil {
		return ""
	}
	switch r.Event.Name {
	case "fault":
		if strings.HasPrefix(r.Event.Note, "armed: ") {
			return "" // the relay writes its own record of each fault it applies
		}
		return "a fault relay changed its frames on the way (" + r.Event.Note + ")"
	case "stop-reading", "resume-reading", "stalled", "discard":
		return "its Core stopped reading the daemon's frames (" + r.Event.Note + "), a stall the replay does not make"
	case "oversize":
		return "its Core wrote a frame over the size limit (" + r.Event.Note + "), which the replay does not send"
	}
	return "a fault record the replay cannot reproduce (" + r.Event.Name + ": " + r.Event.Note + ")"
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// reportReplays prints one line per replay, each beside its recorded verdict, and the tally. It
// fails (exit 1) if a replay diverged, else (exit 2) if one could not be played.
func reportReplays(out io.Writer, cases []reports.Case, recorded map[string]*journal.Assertion, notReplayable int) error {
	var same, alike, diverged, na, harness int
	line := func(word, id, rest string) { fmt.Fprintf(out, "%-*s %s%s\n", replayColumn, word, id, rest) }
	for _, c := range cases {
		r := c.Result
		id := strings.TrimPrefix(r.Scenario, "replay/")
		rec := recorded[id]
		passed := rec == nil || rec.Verdict == string(scenarios.Pass)
		switch r.Verdict {
		case scenarios.Pass:
			if passed {
				same++
				line("same", id, "")
				continue
			}
			// The recording holds the daemon's frames up to its failure; answering them all again
			// is failing the same way.
			alike++
			word := "fails as recorded"
			if rec.Verdict != string(scenarios.Fail) {
				word = "ends as recorded" // inconclusive, or a harness error: not the daemon's failure
			}
			line(word, id, "")
			fmt.Fprintf(out, "  recorded: %s\n", recordedVerdict(rec))
			continue
		case scenarios.NotApplicable:
			na++
			why := ""
			if r.Failure != nil {
				why = ": " + strings.TrimPrefix(firstLine(r.Failure.Message), "not applicable: ")
			}
			line("not applicable", id, why)
			continue
		case scenarios.HarnessError:
			harness++
			why := ""
			if r.Failure != nil {
				why = ": " + firstLine(r.Failure.Message)
			}
			line("harness error", id, why)
			continue
		}
		diverged++
		line("diverges", id, "")
		fmt.Fprintf(out, "  recorded: %s\n", recordedVerdict(rec))
		if f := r.Failure; f != nil {
			where := "outside the replay's steps"
			if f.Step > 0 {
				where = fmt.Sprintf("at the replay's step %d, %s", f.Step, f.StepDesc)
			}
			fmt.Fprintf(out, "  now (%s) %s: %s\n", r.Verdict, where, strings.ReplaceAll(f.Message, "\n", "\n  "))
			if f.Diff != "" {
				fmt.Fprintf(out, "  %s\n", strings.ReplaceAll(strings.TrimRight(f.Diff, "\n"), "\n", "\n  "))
			}
		}
	}
	parts := []string{fmt.Sprintf("%d the same", same)}
	if alike > 0 {
		parts = append(parts, fmt.Sprintf("%d %s as recorded", alike, plural(alike, "fails or ends", "fail or end")))
	}
	parts = append(parts, fmt.Sprintf("%d %s", diverged, plural(diverged, "diverges", "diverge")))
	if na > 0 {
		parts = append(parts, fmt.Sprintf("%d not applicable", na))
	}
	if harness > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", harness, plural(harness, "harness error", "harness errors")))
	}
	tail := ""
	if notReplayable > 0 {
		tail = fmt.Sprintf("; %d not replayable", notReplayable)
	}
	fmt.Fprintf(out, "%d %s: %s%s\n", len(cases), plural(len(cases), "replay", "replays"), strings.Join(parts, ", "), tail)
	switch {
	case diverged > 0:
		return &exitError{code: 1, err: fmt.Errorf("%d %s", diverged, plural(diverged, "replay diverged", "replays diverged"))}
	case harness > 0:
		return &exitError{code: 2, err: fmt.Errorf("%d %s could not be played (harness error)", harness, plural(harness, "replay", "replays"))}
	}
	return nil
}

// recordedVerdict says what the original run recorded: its verdict, and where and why it failed.
func recordedVerdict(a *journal.Assertion) string {
	switch {
	case a == nil:
		return "no verdict"
	case a.Verdict == string(scenarios.Pass):
		return "pass"
	}
	where := "outside any step (the connection, the first heartbeat, or a check after the last step)"
	if a.Step > 0 {
		where = fmt.Sprintf("at step %d", a.Step)
		if a.StepDesc != "" {
			where += ", " + a.StepDesc
		}
	}
	return fmt.Sprintf("%s %s: %s", a.Verdict, where, firstLine(a.Message))
}
