package execution

import (
	"crypto/rand"
	"fmt"

	"github.com/wirecheck/wirecheck/reference/core/execution/turn"
)

// NewID returns a random canonical (lowercase, version 4) UUID: Session, Turn, Run and preparation
// request IDs are Core's own choice.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// CancelDeliveryID is the delivery ID of a Run's cancellation.
func CancelDeliveryID(runID string) string { return turn.CancelDeliveryID(runID) }
