package store_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Bodies live apart from the record: a preparation reads back whole, a replaced one leaves no body
// of the old one behind, and a removed one none at all, across a reopen.
func TestPreparationBodiesRoundTripAndAreReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "core.db")
	s := open(t, path)
	for _, dev := range []string{"dev", "dev-2"} { // dev-2's key has dev's as a prefix
		if _, err := s.CreateDevice(dev, "ws"); err != nil {
			t.Fatal(err)
		}
	}
	two := &store.Preparation{EnvironmentID: "env", SessionID: "ses", Operations: []store.PreparationOperation{
		{Action: proto.ActionFile, File: &proto.PreparedFile{Path: "/workspace/a"}, Content: []byte("first body")},
		{Action: proto.ActionInitialize, Initialization: &proto.RuntimeInitialization{Action: "setup"}},
		{Action: proto.ActionFile, File: &proto.PreparedFile{Path: "/workspace/b"}, Content: []byte{0, 1, 2}},
	}}
	other := &store.Preparation{EnvironmentID: "env", SessionID: "ses", Operations: []store.PreparationOperation{
		{Action: proto.ActionFile, File: &proto.PreparedFile{Path: "/workspace/c"}, Content: []byte("dev-2's")},
	}}
	if err := s.SetPreparation("dev", two); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPreparation("dev-2", other); err != nil {
		t.Fatal(err)
	}
	if two.Operations[0].Content == nil {
		t.Fatal("SetPreparation cleared the caller's bodies")
	}
	s.Close()
	s = open(t, path)
	defer s.Close()
	got, err := s.Preparation("dev")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(two, got); d != "" {
		t.Fatalf("read back (-stored +read):\n%s", d)
	}
	one := &store.Preparation{EnvironmentID: "env", SessionID: "ses", Operations: []store.PreparationOperation{
		{Action: proto.ActionInitialize, Initialization: &proto.RuntimeInitialization{Action: "setup"}},
	}}
	if err := s.SetPreparation("dev", one); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Preparation("dev"); !cmp.Equal(one, got) {
		t.Fatalf("a replaced preparation reads back with an old body:\n%s", cmp.Diff(one, got))
	}
	if err := s.SetPreparation("dev", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Preparation("dev"); got != nil {
		t.Fatalf("a removed preparation reads back: %+v", got)
	}
	if got, _ := s.Preparation("dev-2"); !cmp.Equal(other, got) {
		t.Fatalf("another device's preparation changed:\n%s", cmp.Diff(other, got))
	}
	// Revisions key the Core's cache of built operations: never reused, not even after a removal.
	if err := s.SetPreparation("dev", two); err != nil {
		t.Fatal(err)
	}
	head, err := s.PreparationHead("dev")
	if err != nil {
		t.Fatal(err)
	}
	if head.Revision != 3 || two.Revision != 3 || one.Revision != 2 || other.Revision != 1 {
		t.Fatalf("revisions: head %d, set again %d, second %d, other device %d; want 3, 3, 2, 1", head.Revision, two.Revision, one.Revision, other.Revision)
	}
	if head.Operations[0].Content != nil {
		t.Fatal("PreparationHead read a body")
	}
}
