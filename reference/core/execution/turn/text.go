package turn

// Text is append-only text that is never changed in place: Append returns a new Text and the old
// one still reads as it did, so a State stays a value while deltas accumulate.
type Text struct {
	last *fragment
	n    int
}

type fragment struct {
	prev *fragment
	s    string
}

// Append returns the text followed by s.
func (t Text) Append(s string) Text {
	if s == "" {
		return t
	}
	return Text{last: &fragment{prev: t.last, s: s}, n: t.n + len(s)}
}

// Len is the text's length in bytes.
func (t Text) Len() int { return t.n }

func (t Text) String() string {
	buf := make([]byte, t.n)
	i := t.n
	for f := t.last; f != nil; f = f.prev {
		i -= len(f.s)
		copy(buf[i:], f.s)
	}
	return string(buf)
}
