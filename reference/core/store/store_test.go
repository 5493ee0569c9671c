package store_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

func open(t *testing.T, path string) *store.Store {
	t.Helper()
	s, err := store.Open(path, store.Options{Clock: clock.NewFake()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCredentialsAreStoredAsDigestsAndComparedExactly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "core.db")
	s := open(t, path)
	cred, err := s.CreateDevice("dev-1", "ws")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate("dev-1", cred); err != nil {
		t.Fatalf("the issued credential must authenticate: %v", err)
	}
	if _, err := s.Authenticate("dev-1", cred+"x"); !errors.Is(err, store.ErrBadCredential) {
		t.Fatalf("a wrong credential: %v", err)
	}
	if _, err := s.Authenticate("dev-2", cred); !errors.Is(err, store.ErrUnknownDevice) {
		t.Fatalf("an unknown device: %v", err)
	}
	if err := s.AddDevice(store.Device{ID: "other", RuntimeType: "project_api_key"}, "k"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate("other", "k"); !errors.Is(err, store.ErrWrongRuntime) {
		t.Fatalf("a non-daemon credential: %v", err)
	}
	if err := s.RetireDevice("dev-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate("dev-1", cred); !errors.Is(err, store.ErrDeviceRetired) {
		t.Fatalf("a retired device: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), cred) {
		t.Fatal("the credential is stored in the clear")
	}
}

func TestOutcomesAreWrittenOnceAndBearerTokensNeverStored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "core.db")
	s := open(t, path)
	cfg := proto.PromptRequestPayload{AgentKind: "contract", MCPHTTPServers: []proto.MCPHTTPServer{{
		ConnectionOrigin: proto.MCPOriginService, ServerLabel: "m", ServerURL: "https://m", BearerToken: "secret-bearer-value"}}}
	sess := &store.Session{ID: "s", DeviceID: "d", EnvironmentType: store.EnvironmentNone, Configuration: cfg}
	turn := &store.Turn{ID: "t", SessionID: "s", DeviceID: "d", RunID: "r", Input: proto.TextInput("hi")}
	if err := s.CreateTurn(sess, turn); err != nil {
		t.Fatal(err)
	}
	if cfg.MCPHTTPServers[0].BearerToken != "secret-bearer-value" {
		t.Fatal("redaction must not change the caller's configuration")
	}
	if _, err := s.Commit("t", func(t *store.Turn) error { t.Phase = store.PhasePreparing; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append("t", store.Event{Kind: store.EventReceived, Type: "delta"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Finish("t", &store.Outcome{Status: proto.TurnCompleted}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Finish("t", &store.Outcome{Status: proto.TurnFailed}); !errors.Is(err, store.ErrTerminal) {
		t.Fatalf("a second outcome must be refused: %v", err)
	}
	if _, err := s.Commit("t", func(*store.Turn) error { return nil }); !errors.Is(err, store.ErrTerminal) {
		t.Fatalf("a finished Turn must not change: %v", err)
	}
	got, err := s.TurnByRun("r")
	if err != nil || got.Outcome == nil || got.Outcome.Status != proto.TurnCompleted || got.Phase != store.PhaseDone {
		t.Fatalf("turn by run: %+v %v", got, err)
	}
	_ = s.Close()
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), "secret-bearer-value") {
		t.Fatal("an MCP bearer token reached the file")
	}
}

func TestReconcileSeesOnlyInFlightTurnsAndSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "core.db")
	s := open(t, path)
	for i, phase := range []string{store.PhaseQueued, store.PhaseStarting, store.PhaseRunning} {
		id := string(rune('a' + i))
		if err := s.CreateTurn(nil, &store.Turn{ID: id, RunID: "run-" + id, Input: proto.TextInput("x")}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(id, func(t *store.Turn) error { t.Phase = phase; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Finish("c", &store.Outcome{Status: proto.TurnCompleted}); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()

	s = open(t, path)
	defer s.Close()
	seen := map[string]string{}
	settled, err := s.Reconcile(func(f store.InFlight) *store.Outcome {
		seen[f.TurnID] = f.Phase
		return &store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonExecutionInterrupted, EffectUnknown: store.Dispatched(f.Phase)}
	})
	if err != nil || len(settled) != 2 || seen["a"] != store.PhaseQueued || seen["b"] != store.PhaseStarting || seen["c"] != "" {
		t.Fatalf("reconcile saw %v (settled %v, err %v)", seen, settled, err)
	}
	b, _ := s.Turn("b")
	if b.Outcome == nil || !b.Outcome.EffectUnknown || b.Phase != store.PhaseStarting {
		t.Fatalf("turn b after reconcile: %+v", b)
	}
	again, _ := s.Reconcile(func(store.InFlight) *store.Outcome { t.Fatal("nothing is in flight any more"); return nil })
	if len(again) != 0 {
		t.Fatal("reconcile twice")
	}
}

// A runner's batch: the record change and the journal events land in one transaction, the events
// in order and keeping the time Core observed them; a refused batch leaves nothing.
func TestCommitWritesARecordChangeAndItsEventsTogether(t *testing.T) {
	clk := clock.NewFake()
	refuse := false
	s, err := store.Open(filepath.Join(t.TempDir(), "core.db"), store.Options{Clock: clk, WriteFault: func() error {
		if refuse {
			return errors.New("refused")
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess := &store.Session{ID: "s", DeviceID: "d", EnvironmentType: store.EnvironmentNone}
	if err := s.CreateTurn(sess, &store.Turn{ID: "t", SessionID: "s", DeviceID: "d", RunID: "r"}); err != nil {
		t.Fatal(err)
	}
	seen := clk.Now().UTC()
	clk.Advance(time.Second)
	toRunning := func(t *store.Turn) error { t.Phase = store.PhaseRunning; return nil }
	rec, err := s.Commit("t", toRunning,
		store.Event{Kind: store.EventReceived, Type: "preparation_status", At: seen},
		store.Event{Kind: store.EventTransition, Type: "starting→running"})
	if err != nil || rec.Phase != store.PhaseRunning {
		t.Fatalf("commit: %+v %v", rec, err)
	}
	refuse = true
	if _, err := s.Commit("t", func(t *store.Turn) error { t.Phase = store.PhaseCancelling; return nil },
		store.Event{Kind: store.EventReceived, Type: "delta"}); err == nil {
		t.Fatal("a refused batch must fail")
	}
	refuse = false
	if _, err := s.Commit("t", nil, store.Event{Kind: store.EventReceived, Type: "done"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Turn("t")
	if err != nil || got.Phase != store.PhaseRunning {
		t.Fatalf("the refused batch changed the record: %+v %v", got, err)
	}
	j, err := s.Journal("t")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, ev := range j[len(j)-3:] {
		lines = append(lines, fmt.Sprintf("%d %s %s %s", ev.Seq, ev.Kind, ev.Type, ev.At.Sub(seen)))
	}
	want := []string{
		fmt.Sprintf("%d received preparation_status 0s", len(j)-2),
		fmt.Sprintf("%d transition starting→running 1s", len(j)-1),
		fmt.Sprintf("%d received done 1s", len(j)),
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Fatalf("journal (-want +got):\n%s", diff)
	}
}
