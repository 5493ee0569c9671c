package store

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReconcileWorkspace: what a stopped Core left pending is settled from its kind alone; what
// was settled stays as it was, data included.
func TestReconcileWorkspace(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "core.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ops := []*WorkspaceOp{
		{ID: "w1", Kind: "write", State: WorkspacePending},
		{ID: "r1", Kind: "read", State: "completed", Data: []byte("kept")},
		{ID: "e1", Kind: "export", State: WorkspacePending},
	}
	for _, op := range ops {
		if err := st.PutWorkspaceOp(op); err != nil {
			t.Fatal(err)
		}
	}
	settled, err := st.ReconcileWorkspace(func(kind string) (string, string) {
		if kind == "write" {
			return WorkspaceUnknown, "write_unconfirmed"
		}
		return "failed", "export_interrupted"
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(settled)
	if diff := cmp.Diff([]string{"e1", "w1"}, settled); diff != "" {
		t.Fatalf("settled (-want +got):\n%s", diff)
	}
	got := map[string]string{}
	for _, id := range []string{"w1", "r1", "e1"} {
		op, err := st.WorkspaceOp(id)
		if err != nil {
			t.Fatal(err)
		}
		got[id] = op.State + " " + op.ErrorCode + " " + string(op.Data)
	}
	want := map[string]string{"w1": "unknown write_unconfirmed ", "r1": "completed  kept", "e1": "failed export_interrupted "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("records (-want +got):\n%s", diff)
	}
}

// Data lives apart from the record: it reads back with the operation, not with the listing, and
// an update without data leaves none behind.
func TestWorkspaceDataRoundTrips(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "core.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	op := &WorkspaceOp{ID: "op-1", Kind: "export", State: "completed", Data: []byte("archive bytes")}
	if err := s.PutWorkspaceOp(op); err != nil {
		t.Fatal(err)
	}
	got, err := s.WorkspaceOp("op-1")
	if err != nil || string(got.Data) != "archive bytes" || got.DataBytes != int64(len("archive bytes")) {
		t.Fatalf("read back: %+v %v", got, err)
	}
	list, err := s.WorkspaceOps()
	if err != nil || len(list) != 1 || list[0].Data != nil || list[0].DataBytes != int64(len("archive bytes")) {
		t.Fatalf("listing: %+v %v", list, err)
	}
	op.Data = nil
	if err := s.PutWorkspaceOp(op); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.WorkspaceOp("op-1"); got.Data != nil || got.DataBytes != 0 {
		t.Fatalf("an update without data kept %q", got.Data)
	}
}
