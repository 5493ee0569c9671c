package prototest_test

import (
	"testing"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/proto/prototest"
)

// The fixture decides every field; a field added without a decision fails here first.
func TestFixtureDecidesEveryCapability(t *testing.T) {
	c := prototest.Capabilities()
	if err := c.Validate(); err != nil {
		t.Fatalf("fixture leaves a capability undecided: %v", err)
	}
	for _, name := range proto.CapabilityNames() {
		if v, _ := c.Get(name); v != proto.Unsupported {
			t.Errorf("%s = %v, want unsupported by default", name, v)
		}
	}
	c = prototest.Capabilities("preparation", "environment_none")
	if v, _ := c.Get("preparation"); v != proto.Supported {
		t.Errorf("preparation override not applied")
	}
}
