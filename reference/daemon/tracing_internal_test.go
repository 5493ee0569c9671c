package daemon

import (
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// A Run's frames carry its starting request's trace as it came, a W3C one or not; one longer than
// a reply may echo (WS-15's 256 characters) is not repeated on every frame of the stream.
func TestRunTraceCopiesTheRequestsTrace(t *testing.T) {
	for in, want := range map[string]string{
		"": "",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"not a traceparent":                            "not a traceparent",
		strings.Repeat("a", proto.TraceEchoMaxChars):   strings.Repeat("a", proto.TraceEchoMaxChars),
		strings.Repeat("a", proto.TraceEchoMaxChars+1): "",
	} {
		if got := runTrace(in); got != want {
			t.Errorf("runTrace(%d chars) = %d chars, want %d", len(in), len(got), len(want))
		}
	}
}
