package proto_test

import (
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// The declaration decides every field; a field added without a decision fails here first.
func TestDeclareCapabilitiesDecidesEveryField(t *testing.T) {
	c := proto.MustDeclareCapabilities()
	if err := c.Validate(); err != nil {
		t.Fatalf("the declaration leaves a capability undecided: %v", err)
	}
	for _, name := range proto.CapabilityNames() {
		if v, _ := c.Get(name); v != proto.Unsupported {
			t.Errorf("%s = %v, want unsupported by default", name, v)
		}
	}
	c = proto.MustDeclareCapabilities("preparation", "environment_none")
	if v, _ := c.Get("preparation"); v != proto.Supported {
		t.Errorf("preparation is not marked supported")
	}
	if _, err := proto.DeclareCapabilities("teleportation"); err == nil {
		t.Errorf("an unknown capability name was accepted")
	}
}
