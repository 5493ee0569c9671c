package daemon_test

import (
	"fmt"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// A native start that produces no Turn is answered with a rejection, and the admission fails at
// its own next revision: a later release re-publishes failed at revision 4, never a second
// revision 3 (starting was 3), so Core can order what it sees.
func TestFailedNativeStartEndsAtItsOwnRevision(t *testing.T) {
	verifyNoLeaks(t)
	s := startDaemon(t)
	var seq int
	ready := s.prepare(&seq, "s1", map[string]any{"turn": map[string]any{"start_fails": true}})
	id := fmt.Sprintf("prepare-%d", seq)
	s.send(proto.TypeExecutionStart, id, map[string]any{
		"executor_id": ready.ExecutorID, "handle": ready.Handle, "run_id": "run-1", "input": helloInput})
	if st := s.status(id); st.State != proto.StateStarting || st.Revision != 3 {
		t.Fatalf("after the start: %+v", st)
	}
	if st := s.status(id); st.State != proto.StateRejected || st.ErrorCode != proto.CodeExecutorUnavailable || st.Revision != 0 {
		t.Fatalf("the start's answer: %+v", st)
	}
	s.send(proto.TypeExecutionRelease, id, map[string]any{"handle": ready.Handle})
	if st := s.status(id); st.State != proto.StateFailed || st.ErrorCode != proto.CodeExecutorUnavailable || st.Revision != 4 {
		t.Fatalf("the release re-published %+v, want failed/executor_unavailable at revision 4", st)
	}
}

// After device_shutdown the connection goes on: releasing a ready admission it abandoned
// re-publishes failed/connection_closed at the revision after ready.
func TestDeviceShutdownFailsReadyAdmissionAtTheNextRevision(t *testing.T) {
	verifyNoLeaks(t)
	s := startDaemon(t)
	var seq int
	ready := s.prepare(&seq, "s1", map[string]any{})
	id := fmt.Sprintf("prepare-%d", seq)
	s.send(proto.TypeDeviceShutdown, "", map[string]any{})
	s.send(proto.TypeExecutionRelease, id, map[string]any{"handle": ready.Handle})
	st := s.status(id)
	if st.State != proto.StateFailed || st.ErrorCode != proto.CodeConnectionClosed || st.Revision != ready.Revision+1 {
		t.Fatalf("the release re-published %+v, want failed/connection_closed at revision %d", st, ready.Revision+1)
	}
}
