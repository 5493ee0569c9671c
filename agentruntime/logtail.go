package agentruntime

import (
	"bufio"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
)

// Redacted replaces every secret value in captured log lines.
const Redacted = "[REDACTED]"

// DefaultLogLines is how many lines a unit's in-memory tail keeps unless the adapter says otherwise.
const DefaultLogLines = 10000

// maxLineBytes bounds one captured line; a longer line is split.
const maxLineBytes = 64 << 10

// logTail is a bounded ring of lines, oldest first. Safe for concurrent use.
type logTail struct {
	mu    sync.Mutex
	lines []string // ring storage, len <= cap
	next  int      // index of the oldest line once the ring is full
	limit int
}

func newLogTail(limit int) *logTail {
	if limit <= 0 {
		limit = DefaultLogLines
	}
	return &logTail{limit: limit}
}

// Append adds lines, evicting the oldest beyond the limit.
func (t *logTail) Append(lines ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range lines {
		if len(t.lines) < t.limit {
			t.lines = append(t.lines, l)
			continue
		}
		t.lines[t.next] = l
		t.next = (t.next + 1) % t.limit
	}
}

// Lines returns the last tail lines (all of them when tail < 0), oldest first.
func (t *logTail) Lines(tail int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ordered := make([]string, 0, len(t.lines))
	ordered = append(ordered, t.lines[t.next:]...)
	ordered = append(ordered, t.lines[:t.next]...)
	return tailLines(ordered, tail)
}

// tailLines keeps the last n lines, oldest first; n < 0 keeps all, n larger than the input keeps
// all, 0 keeps none. The result never aliases lines.
func tailLines(lines []string, n int) []string {
	if n < 0 || n > len(lines) {
		n = len(lines)
	}
	return slices.Clone(lines[len(lines)-n:])
}

// redactor replaces secret values in text. The zero value redacts nothing.
type redactor struct {
	r *strings.Replacer
}

// newRedactor redacts every non-empty value, longest first so that a secret containing another is
// replaced whole.
func newRedactor(values []string) redactor {
	vals := slices.DeleteFunc(slices.Clone(values), func(v string) bool { return v == "" })
	if len(vals) == 0 {
		return redactor{}
	}
	slices.SortFunc(vals, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(vals))
	for _, v := range vals {
		pairs = append(pairs, v, Redacted)
	}
	return redactor{strings.NewReplacer(pairs...)}
}

func (r redactor) apply(s string) string {
	if r.r == nil {
		return s
	}
	return r.r.Replace(s)
}

// pumpLines reads src to EOF (or a read error), splitting it into lines without their line
// terminators; each line is redacted and passed to sink. A line longer than maxLineBytes is passed
// on in pieces. A final line without a newline is passed on too.
func pumpLines(src io.Reader, red redactor, sink func(line string)) {
	br := bufio.NewReaderSize(src, maxLineBytes)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			line := strings.TrimRight(string(chunk), "\r\n")
			sink(red.apply(line))
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return
		}
	}
}
