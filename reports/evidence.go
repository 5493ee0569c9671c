package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wirecheck/wirecheck/scenarios"
)

// Bounds of the daemon output a report keeps per daemon: its last lines, as the reader of a
// failure needs them, never a log that swamps the report.
const (
	OutputLines = 200
	OutputBytes = 64 << 10
)

// boundOutput keeps the last OutputLines lines of a daemon's output, at most OutputBytes of them
// (a single longer line keeps its end), and says first how many lines it left out.
func boundOutput(lines []string) []string {
	if len(lines) == 0 {
		return lines
	}
	kept, size := 0, 0
	for i := len(lines) - 1; i >= 0 && kept < OutputLines; i-- {
		if size+len(lines[i])+1 > OutputBytes {
			break
		}
		size += len(lines[i]) + 1
		kept++
	}
	out := slices.Clone(lines[len(lines)-kept:])
	if kept == 0 { // one line longer than the bound: keep its end
		last := lines[len(lines)-1]
		tail := last[len(last)-OutputBytes:]
		for !utf8.RuneStart(tail[0]) {
			tail = tail[1:]
		}
		out = []string{"…" + tail}
		kept = 1
	}
	if dropped := len(lines) - kept; dropped > 0 {
		out = append([]string{fmt.Sprintf("[… %d earlier %s not kept]", dropped, plural(dropped, "line", "lines"))}, out...)
	}
	return out
}

// inTimeOrder puts a transcript in the order things happened: entries recorded elsewhere and
// appended at the end (the fault relay's events) move to their time. An entry of no step (0) that
// lands among a step's entries belongs to the step in force at that time, as the recorder would
// have tagged it. The sort is stable, so entries recorded in order keep it.
func inTimeOrder(t []scenarios.Exchange) []scenarios.Exchange {
	if slices.IsSortedFunc(t, byTime) {
		return t
	}
	out := slices.Clone(t)
	slices.SortStableFunc(out, byTime)
	step := 0
	for i := range out {
		if out[i].Step == 0 {
			out[i].Step = step
		}
		step = out[i].Step
	}
	return out
}

func byTime(a, b scenarios.Exchange) int { return cmp.Compare(a.At, b.At) }

// daemonSummary is one line on a daemon the scenario launched: how it ended.
func daemonSummary(i, n int, d scenarios.Daemon) string {
	s := "daemon"
	if n > 1 {
		s += fmt.Sprintf(" %d of %d", i+1, n)
	}
	switch {
	case d.Exit == "":
		s += ": still running when the scenario ended"
	default:
		s += ": " + d.Exit
	}
	if d.Killed {
		s += ", killed after the grace period"
	}
	if d.LeftBehind != "" {
		s += ", left behind " + d.LeftBehind
	}
	return s
}

// daemonLog is a case's daemons for the bundle's daemons/ file: each one's summary, then its
// output.
func daemonLog(ds []scenarios.Daemon) string {
	var b strings.Builder
	for i, d := range ds {
		fmt.Fprintf(&b, "# %s; %s\n", daemonSummary(i, len(ds), d), outputWords(d.Output))
		for _, l := range d.Output {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// outputWords says how much of a daemon's output a report holds.
func outputWords(lines []string) string {
	if len(lines) == 0 {
		return "no output"
	}
	return fmt.Sprintf("the last %d %s of its stdout and stderr", len(lines), plural(len(lines), "line", "lines"))
}
