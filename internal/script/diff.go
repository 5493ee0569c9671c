package script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Bounds of a frame diff.
const (
	diffWhole   = 40      // a diff this long or shorter shows every line
	diffContext = 3       // unchanged lines kept on each side of a change in a longer one
	diffCells   = 1 << 20 // beyond lines(expected) × lines(actual), the diff is whole blocks
)

// Diff renders how a received frame differs from the expected one, in JSON notation: a line diff
// of both as indented JSON with members in sorted order, "- " before lines only expected, "+ "
// before lines only received, "  " before lines both have (a trailing comma does not count). In a
// diff longer than diffWhole lines, a run of unchanged lines longer than twice diffContext is
// elided to "  …". A nil expected frame
// (silence was expected) renders nothing, so every received line is "+". Equal frames give "".
// The same frames always give the same text.
func Diff(expected, actual any) string {
	want, got := jsonLines(expected), jsonLines(actual)
	ops := lineDiff(want, got)
	changed := false
	for _, o := range ops {
		changed = changed || o.mark != ' '
	}
	if !changed {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(ops); {
		if ops[i].mark != ' ' {
			b.WriteString(string(ops[i].mark) + " " + ops[i].line + "\n")
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].mark == ' ' {
			j++
		}
		head, tail := diffContext, diffContext // kept after the change before, before the change after
		if i == 0 {
			head = 0
		}
		if j == len(ops) {
			tail = 0
		}
		if len(ops) <= diffWhole || j-i <= head+tail+1 {
			head, tail = j-i, 0
		}
		for k := i; k < i+head; k++ {
			b.WriteString("  " + ops[k].line + "\n")
		}
		if head+tail < j-i {
			b.WriteString("  …\n")
		}
		for k := j - tail; k < j; k++ {
			b.WriteString("  " + ops[k].line + "\n")
		}
		i = j
	}
	return b.String()
}

// jsonLines is v as indented JSON (members sorted, as encoding/json writes maps), one line each.
func jsonLines(v any) []string {
	if v == nil {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return strings.Split(fmt.Sprintf("%v", v), "\n")
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

type diffOp struct {
	mark byte // ' ', '-', '+'
	line string
}

// lineDiff is a shortest edit script from a to b by longest common subsequence, after the common
// head and tail; lines compare without a trailing comma (a member that moved last in its object
// loses it). Unchanged lines are shown as b has them. Too large a middle is all "-", then all "+".
func lineDiff(a, b []string) []diffOp {
	same := func(x, y string) bool { return strings.TrimSuffix(x, ",") == strings.TrimSuffix(y, ",") }
	var ops []diffOp
	pre := 0
	for pre < len(a) && pre < len(b) && same(a[pre], b[pre]) {
		ops = append(ops, diffOp{' ', b[pre]})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && same(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > diffCells {
		for _, l := range ma {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, diffOp{'+', l})
		}
	} else {
		ops = append(ops, lcsDiff(ma, mb, same)...)
	}
	for _, l := range b[len(b)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

// lcsDiff walks the table of longest common suffixes, preferring "-" before "+" at a change.
func lcsDiff(a, b []string, same func(x, y string) bool) []diffOp {
	n, m := len(a), len(b)
	lcs := make([]int32, (n+1)*(m+1)) // lcs[i*(m+1)+j]: of a[i:] and b[j:]
	at := func(i, j int) int32 { return lcs[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			v := max(at(i+1, j), at(i, j+1))
			if same(a[i], b[j]) {
				v = at(i+1, j+1) + 1
			}
			lcs[i*(m+1)+j] = v
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && same(a[i], b[j]):
			ops = append(ops, diffOp{' ', b[j]})
			i, j = i+1, j+1
		case j == m || (i < n && at(i+1, j) >= at(i, j+1)):
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	return ops
}
