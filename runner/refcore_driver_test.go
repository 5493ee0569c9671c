package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// A close the scenario orders waits for Core to have the daemon's connection: the daemon's upgrade
// completes before Core registers its Session, and a close ordered in between found nothing to
// close (connection/close-4001-is-permanent then waited 30 s for a close that never came).
func TestDisconnectWaitsForTheConnection(t *testing.T) {
	rc, err := startReferenceCore(false)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.close()
	d := &refCoreDriver{Core: rc.live.Load(), Clock: rc.clock, Transport: rc.transport, DeviceID: referenceCoreDevice}
	for _, code := range []int{proto.CloseRuntimeDeleted, 4000} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		err := d.Disconnect(ctx, &scenarios.CloseSpec{Code: code})
		cancel()
		if err == nil || !strings.Contains(err.Error(), "has no connection of device") || errors.Is(err, context.Canceled) {
			t.Errorf("close %d with the device offline: %v; want it to wait for the connection, then say there is none", code, err)
		}
	}
}
