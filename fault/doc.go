// Package fault injects the protocol's faults on purpose, deterministically, between any Core and
// any Runtime: a WebSocket relay that sees every envelope in both directions and applies a
// declarative, seeded schedule of rules addressed by envelope (direction, type, id or a bound
// placeholder, and the n-th match): drop, delay, duplicate, reorder, corrupt, cut, refuse the next
// reconnect, and a delayed or half-open close.
//
// The Runtime is pointed at the relay (Relay.Start returns a base URL ending in /api/v1); the relay
// proxies bootstrap and device-status to Core with headers and body intact, rewrites the ws_url
// Core returns so the Runtime dials the relay, and mirrors every upgrade to Core with the same
// query and Authorization header before it accepts the Runtime's, so a refusal by Core reaches the
// Runtime with Core's status and body. The credential is forwarded and never logged or recorded.
//
// Every timer reads the injected clock (a scenario's advance releases a delayed frame), and every
// random choice comes from the seed, which is logged and returned by Relay.Seed: the same seed and
// the same frames in each direction give the same faults.
//
// docs/fault-injection.md describes the schedule format; fault/testdata holds examples.
package fault
