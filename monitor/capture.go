package monitor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/wirecheck/wirecheck/proto"
)

// Capture is a tap that writes every frame it sees as one JSON line (Captured), the input of
// Record. A frame that is not JSON is left out (no scenario could send it again as a frame).
type Capture struct {
	mu      sync.Mutex
	enc     *json.Encoder
	err     error
	skipped int
}

// NewCapture writes to w, which Capture does not close.
func NewCapture(w io.Writer) *Capture { return &Capture{enc: json.NewEncoder(w)} }

func (c *Capture) Open(int, string) {}
func (c *Capture) Close(int)        {}

func (c *Capture) Frame(n int, from proto.Peer, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !json.Valid(data) {
		c.skipped++
		return
	}
	if c.err == nil {
		c.err = c.enc.Encode(Captured{Conn: n, From: from, Frame: json.RawMessage(data)})
	}
}

// Err returns the first write error, and how many frames were left out as not JSON.
func (c *Capture) Err() (skipped int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skipped, c.err
}

// ReadCapture reads a capture file.
func ReadCapture(r io.Reader) ([]Captured, error) {
	var out []Captured
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, proto.MaxFrameBytes+1024)
	for line := 1; sc.Scan(); line++ {
		var c Captured
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("capture line %d: %w", line, err)
		}
		if c.Advance == "" && c.From != proto.Core && c.From != proto.Runtime {
			return nil, fmt.Errorf("capture line %d: from must be core or runtime, not %q", line, c.From)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}
