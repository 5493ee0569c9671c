package proto_test

import (
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// Regressions for the shape fixes made alongside the reflective tests: each frame is what a peer
// could send, and each line says what the shape layer must do with it.
func TestShapeRegressions(t *testing.T) {
	cases := []struct {
		name, frame, err string
	}{
		// JSON member names are case-sensitive: encoding/json's case folding must not apply.
		{"envelope Type is not type", `{"Type":"done","id":"r","payload":{"content":"x"}}`, "envelope.type: is required"},
		{"envelope Payload is not payload", `{"type":"done","id":"r","Payload":{"content":"x"}}`, "done.content: is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := proto.ParseFrame([]byte(c.frame))
			if c.err == "" {
				if err != nil {
					t.Fatalf("ParseFrame(%s) = %v, want accepted", c.frame, err)
				}
				return
			}
			if err == nil || err.Error() != c.err {
				t.Fatalf("ParseFrame(%s)\n got %v\nwant %s", c.frame, err, c.err)
			}
		})
	}
}
