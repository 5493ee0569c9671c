package proto

import "testing"

// A capability decision outside the capability object (a later heartbeat adds one at the top
// level) is shaped as a boolean, not as the integer its Go kind would suggest.
func TestCapabilitySupportMemberIsBoolean(t *testing.T) {
	type payload struct {
		X CapabilitySupport `json:"x" wire:"req"`
	}
	var p payload
	if err := decodeShaped([]byte(`{"x":true}`), &p, true); err != nil || p.X != Supported {
		t.Fatalf("{\"x\":true}: %v, %v", p.X, err)
	}
	if err := decodeShaped([]byte(`{"x":1}`), &p, true); err == nil || err.Error() != "x: must be true or false" {
		t.Fatalf("{\"x\":1}: got %v, want x: must be true or false", err)
	}
}
