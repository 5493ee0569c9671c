package transport

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/wirecheck/wirecheck/proto"
)

// DecodeBootstrapAnswer reads a 2xx bootstrap answer. Members a later Core adds are ignored; an
// empty device_id or a ws_url that is not an absolute ws:// or wss:// URL is an error
// (protocol-facts.md §1.2).
func DecodeBootstrapAnswer(data []byte) (*proto.BootstrapResponse, error) {
	var out proto.BootstrapResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("bootstrap response: %w", err)
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("bootstrap response: %w", err)
	}
	return &out, nil
}

// HeartbeatInterval is the cadence a bootstrap answer sets; heartbeat_seconds <= 0 falls back to
// the default 15 s (protocol-facts.md §1.2), and so does one too large for a time.Duration.
func HeartbeatInterval(b *proto.BootstrapResponse) time.Duration {
	if b.HeartbeatSeconds <= 0 || int64(b.HeartbeatSeconds) > int64(math.MaxInt64/time.Second) {
		return proto.DefaultHeartbeatInterval
	}
	return time.Duration(b.HeartbeatSeconds) * time.Second
}
