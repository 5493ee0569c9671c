// Package execution runs the reference Core's Turns: prepare → start → stream → done over one
// daemon connection, with capability admission at device selection and again right before a Turn
// is claimed, the single retry after executor_unavailable, RETRY of a definite
// preparation_capacity rejection (the Turn stays unclaimed), cancellation with its 15-second
// confirmation, and the projection of what Core observed into the public Turn outcome
// (protocol-facts.md §6.2): delivery_unknown, event_stream_incomplete, device_disconnected,
// preparation_interrupted, preparation_start_failed, executor_recovery_failed, engine_failed with
// the engine classification of §6.1, cancel_unconfirmed, cancel_outcome_unavailable, ...
//
// A Turn's phases form a strict, ordered state machine (Transition rejects every other move);
// each phase is committed before Core sends the frame it leads to, every received frame is
// journalled before Core acts on it, and an outcome is written once. Reconcile settles, after a
// restart, the Turns a previous process left in flight, from their committed phase only: they
// become failed with execution_interrupted, never completed and never dispatched again.
package execution
