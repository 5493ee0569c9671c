package journal

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Writer appends records to a journal, chaining each to the line before it. It is not safe for
// concurrent use: one scenario run has one writer.
type Writer struct {
	w      io.Writer
	n      int
	prev   string
	buf    bytes.Buffer
	enc    *json.Encoder
	closed bool
	header Record // as written
	anchor Record
}

// NewWriter starts a journal with its header (record 0).
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	jw := &Writer{w: w, prev: zeroHash}
	jw.enc = json.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)
	h.Format = Format
	jw.header = Record{Kind: KindHeader, Header: &h}
	return jw, jw.append(&jw.header)
}

// Append writes the next fact; its N and Prev are set here (in r too).
func (w *Writer) Append(r *Record) error {
	if w.closed {
		return errors.New("journal: append after the anchor")
	}
	if r.Kind == KindHeader || r.Kind == KindAnchor {
		return fmt.Errorf("journal: a %s record is written by the writer itself", r.Kind)
	}
	return w.append(r)
}

func (w *Writer) append(r *Record) error {
	r.N, r.Prev = w.n, w.prev
	w.buf.Reset()
	if err := w.enc.Encode(r); err != nil { // Encode ends the line with '\n'
		return fmt.Errorf("journal: record %d: %w", r.N, err)
	}
	line := w.buf.Bytes()
	sum := sha256.Sum256(line[:len(line)-1])
	if _, err := w.w.Write(line); err != nil {
		return fmt.Errorf("journal: record %d: %w", r.N, err)
	}
	w.n++
	w.prev = hex.EncodeToString(sum[:])
	return nil
}

// Close writes the anchor, signed with key unless key is nil. Nothing may be appended after it.
func (w *Writer) Close(key ed25519.PrivateKey) error {
	if w.closed {
		return errors.New("journal: closed twice")
	}
	a := Anchor{Records: w.n, Head: w.prev}
	if key != nil {
		a.KeyID = KeyID(key.Public().(ed25519.PublicKey))
		a.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(key, AnchorMessage(a.Head, a.Records)))
	}
	w.anchor = Record{Kind: KindAnchor, Anchor: &a}
	err := w.append(&w.anchor)
	w.closed = true
	return err
}

// Records is how many records were written, the anchor included.
func (w *Writer) Records() int { return w.n }
