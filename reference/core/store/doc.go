// Package store keeps the reference Core's durable records in one embedded bbolt file: devices
// (credentials only as SHA-256 digests), Sessions, Turns, each Turn's write-once outcome and the
// append-only journal of what Core observed and did for it.
//
// Every write is one bbolt transaction, committed (and synced) before the caller acts on it, so a
// Core killed at any point and restarted on the same file finds every record it committed. Open
// hands the Turns that were still in flight to a reconciler (package execution decides their
// outcome from confirmed facts only); nothing is ever replayed from here.
//
// Buckets:
//
//	devices   device ID → Device (JSON)
//	sessions  Session ID → Session (JSON; MCP bearer tokens are never stored)
//	turns     Turn ID → Turn (JSON; the mutable progress of a Turn)
//	inflight  Turn ID → phase, for every Turn without an outcome (what a restart reconciles)
//	outcomes  Turn ID → Outcome (JSON; written once, never replaced)
//	runs      Run ID → Turn ID
//	journal   Turn ID → sub-bucket of sequence (8-byte big-endian) → Event (JSON)
package store
