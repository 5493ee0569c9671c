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

// A BadAnswer is a 2xx bootstrap answer that breaks protocol-facts.md §1.2 (rule CN-01).
type BadAnswer struct{ Member, Problem string }

func (e *BadAnswer) Error() string {
	return fmt.Sprintf("the bootstrap answer's %s %s (protocol-facts.md §1.2, CN-01)", e.Member, e.Problem)
}

// CheckBootstrapAnswer holds a 2xx bootstrap answer to all of §1.2: a JSON object whose device_id is
// the one presented, a non-empty workspace_id, an absolute ws:// or wss:// ws_url, an integer
// heartbeat_seconds and a non-empty protocol_version (Core's own; a mismatch is the upgrade's 426).
// Members a later Core adds are allowed.
func CheckBootstrapAnswer(data []byte, presented string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return &BadAnswer{"body", "is not a JSON object: " + err.Error()}
	}
	str := func(name string) (string, error) {
		raw, ok := m[name]
		if !ok {
			return "", &BadAnswer{name, "is missing"}
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", &BadAnswer{name, "is not a string: " + string(raw)}
		}
		return s, nil
	}
	deviceID, err := str("device_id")
	if err != nil {
		return err
	}
	if deviceID != presented {
		return &BadAnswer{"device_id", fmt.Sprintf("is %q, not the device that bootstrapped (%q)", deviceID, presented)}
	}
	if ws, err := str("workspace_id"); err != nil {
		return err
	} else if ws == "" {
		return &BadAnswer{"workspace_id", "is empty"}
	}
	if _, err := str("ws_url"); err != nil {
		return err
	}
	raw, ok := m["heartbeat_seconds"]
	var secs int64
	if !ok {
		return &BadAnswer{"heartbeat_seconds", "is missing"}
	} else if json.Unmarshal(raw, &secs) != nil {
		return &BadAnswer{"heartbeat_seconds", "is not an integer: " + string(raw)}
	}
	// Core's own version: a Runtime that presents another one learns of it at the upgrade (426).
	if v, err := str("protocol_version"); err != nil {
		return err
	} else if v == "" {
		return &BadAnswer{"protocol_version", "is empty"}
	}
	var out proto.BootstrapResponse
	_ = json.Unmarshal(data, &out)
	if err := out.Validate(); err != nil {
		return &BadAnswer{"ws_url", "must be an absolute ws:// or wss:// URL"}
	}
	return nil
}

// HeartbeatInterval is the cadence a bootstrap answer sets; heartbeat_seconds <= 0 falls back to
// the default 15 s (protocol-facts.md §1.2), and so does one too large for a time.Duration.
func HeartbeatInterval(b *proto.BootstrapResponse) time.Duration {
	if b.HeartbeatSeconds <= 0 || int64(b.HeartbeatSeconds) > int64(math.MaxInt64/time.Second) {
		return proto.DefaultHeartbeatInterval
	}
	return time.Duration(b.HeartbeatSeconds) * time.Second
}
