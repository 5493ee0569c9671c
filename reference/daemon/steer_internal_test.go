package daemon

import (
	"errors"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
)

// TestReceiptSendBudget (IN-18): a receipt whose write does not complete is abandoned after 5 s on
// the daemon's clock, and not a moment before; one that completes returns its own result.
func TestReceiptSendBudget(t *testing.T) {
	fake := clock.NewFake()
	stuck := make(chan error) // a write that never completes
	res := make(chan error, 1)
	go func() { res <- sendWithin(fake, stuck, proto.ReceiptSendBudget) }()
	if !fake.WaitDue(proto.ReceiptSendBudget, time.Second) {
		t.Fatal("no budget timer was armed")
	}
	fake.Advance(proto.ReceiptSendBudget - time.Millisecond)
	select {
	case err := <-res:
		t.Fatalf("the send gave up before its budget: %v", err)
	default:
	}
	fake.Advance(time.Millisecond)
	if err := <-res; !errors.Is(err, errSendBudget) {
		t.Fatalf("after 5 s: %v, want errSendBudget", err)
	}

	done := make(chan error, 1)
	done <- errTransportClosed
	if err := sendWithin(fake, done, proto.ReceiptSendBudget); !errors.Is(err, errTransportClosed) {
		t.Fatalf("a completed send: %v", err)
	}
}

// TestRawInputID: invalid_input can only be addressed to a non-blank string input_id.
func TestRawInputID(t *testing.T) {
	for raw, want := range map[string]string{
		`{"input_id":"7","input":[]}`: "7",
		`{"input_id":7}`:              "",
		`{"input":[]}`:                "",
		`{"input_id":"  "}`:           "",
		`not json`:                    "",
	} {
		if got := rawInputID([]byte(raw)); got != want {
			t.Errorf("rawInputID(%s) = %q, want %q", raw, got, want)
		}
	}
}
