// Package proto is the wire of the Core ↔ Runtime daemon protocol: the envelope, a typed payload for
// every message type, the registry that maps a type to its sender and payload, strict decoders,
// validators, limits, timers, finite code sets and the wire version.
//
// It is the only place in wirecheck that defines a payload shape. Both reference sides, both scripted
// peers, the fault relay and the reports decode and validate frames through it, so a rule lives once.
//
// Decoding has two layers. The shape layer (Spec.DecodePayload) is driven by the `wire` struct tag on
// every payload member: `req` members must be present, members without `null` must not be JSON null,
// a strict message rejects unknown members at any depth, and a member of the wrong JSON type is an
// error naming its path. The rule layer (Validator.Validate) checks what the spec says about values:
// enumerations, bounds, canonical UUIDs, exactly-one-of members. ParseFrame runs both.
//
// Every error is a *RuleError that names the message type, the member path and the rule, for example
//
//	runtime_prepare.begin.sha256: must be 64 lowercase hex characters
//
// The package imports only the standard library.
package proto
