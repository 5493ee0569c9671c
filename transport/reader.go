package transport

import (
	"bytes"
	"context"

	"github.com/coder/websocket"
)

// Reader reads a connection's messages into one buffer it reuses. websocket.Conn.Read allocates
// every message afresh and grows it from 512 bytes, which a transfer's 87 KB chunks paid for in
// copies and cleared memory (docs/performance.md "Bulk transfers").
type Reader struct {
	Conn *websocket.Conn
	buf  bytes.Buffer
}

// Read returns the next message. Its bytes are valid only until the next Read: a caller that keeps
// any of them copies them (proto.DecodeEnvelope does).
func (r *Reader) Read(ctx context.Context) (websocket.MessageType, []byte, error) {
	typ, rd, err := r.Conn.Reader(ctx)
	if err != nil {
		return 0, nil, err
	}
	r.buf.Reset()
	if _, err := r.buf.ReadFrom(rd); err != nil {
		return 0, nil, err
	}
	return typ, r.buf.Bytes(), nil
}
