// Package load has one job: put many light simulated Runtimes on one Core and measure what the
// Core holds. Each simulated Runtime bootstraps over HTTP, dials the WebSocket, heartbeats at the
// Core's interval (one shared wheel, not a timer per Runtime) and serves the `contract` kind with a
// subset of its script (docs/contract-harness.md §3: turn.events of delta, thinking, usage and
// delay_ms steps, turn.content, turn.usage, turn.wait_for_cancel, cancel.outcome), answering
// execution admission and cancellation so that Turns complete. A driver starts Turns at a given
// rate through the Core's JSON API, optionally drops and reconnects Runtimes (a reconnect storm)
// and withholds cancellation receipts, then reads the Core's records back and checks that every
// Turn ended once, with an outcome the protocol allows. It sends traffic only to loopback
// addresses.
package load
