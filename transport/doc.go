// Package transport is how a Runtime and a Core meet, written once: the bootstrap request and its
// answer, the WebSocket dial with the right query and headers, and the rules a Core applies to
// bootstrap, device-status and the upgrade before it answers (protocol-facts.md §1.1–§1.4).
//
// Both Runtimes (the reference daemon and the scripted one) connect with Client; both Cores (the
// reference gateway and the scripted Core) check requests with Rules and answer a refusal with
// Rejection.Write. A Rejection names the check that failed, so a caller can tell a missing
// device_id from a missing version or a missing Bearer credential even where they share a code.
//
// The package imports only proto, github.com/coder/websocket and the standard library.
package transport
