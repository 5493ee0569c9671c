// Package core is the reference Core: the server side of the Core ↔ Runtime daemon protocol,
// written from runtime-protocol.md and protocol-facts.md and real enough to run a Turn end to end
// against a Runtime in another process. It is what scriptedruntime certifies, and what
// `wirecheck core --listen ADDR --data FILE` serves.
//
// A Core is four parts wired together:
//
//	gateway    the daemon routes, the connection registry, capability snapshots, subscriptions
//	policy     capability admission as a table (ALLOW / DENY with the missing capability / RETRY)
//	execution  the Turn state machine: prepare → start → stream → done, and the outcome projection
//	store      durable devices, Sessions, Turns, outcomes and the event journal in one bbolt file
//
// plus the Turn API (Go, and the small JSON HTTP API in api.go): register a device, start a Turn
// on it, cancel it, read its record, its journal and the device's capability snapshot; and read,
// write and export a Turn's workspace (workspace_api.go; the pure machine of one operation is
// package execution/workspace, its runner execution/workspace*.go).
//
// The reference Core imports no scenario, no scripted peer and not the reference Runtime.
package core
