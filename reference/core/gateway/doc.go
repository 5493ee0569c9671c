// Package gateway is the reference Core's side of the daemon connection (protocol-facts.md §1):
// the bootstrap, device-status and WebSocket routes under /api/v1/agent-daemon/, the registry of
// live connections (one per device; a newer one replaces the older and inherits nothing), the
// per-connection capability snapshot, and the subscriptions through which Core observes a
// connection: preparation status per request ID, Run events per Run ID, receipts per delivery ID.
//
// A subscription ends in one of three ways: its terminal frame (done; a terminal preparation
// state), or an explicit observation error (ErrSessionClosed on disconnect or replacement,
// ErrSubscriberOverflow when its consumer falls behind). The gateway never fabricates an error or
// a done frame.
//
// Every goroutine belongs to the Gateway or to one Session, and Close stops them all. Every timer
// (liveness, write deadlines) reads the injected clock.
package gateway
