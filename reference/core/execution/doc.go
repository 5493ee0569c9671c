// Package execution runs the reference Core's Turns: prepare → start → stream → done over one
// daemon connection, with capability admission at device selection and again right before a Turn
// is claimed, the single retry after executor_unavailable, RETRY of a definite
// preparation_capacity rejection (the Turn stays unclaimed), cancellation with its 15-second
// confirmation, and the projection of what Core observed into the public Turn outcome
// (protocol-facts.md §6.2): delivery_unknown, event_stream_incomplete, device_disconnected,
// preparation_interrupted, preparation_start_failed, executor_recovery_failed, engine_failed with
// the engine classification of §6.1, cancel_unconfirmed, cancel_outcome_unavailable, and active
// input (DeliverInput: prompt_steer one input at a time, input_outcome_unknown, input_<code>), and
// interactions and functions (Answer: a permission_request, prompt_for_user_choice or
// function_call answered by a caller, sent one decision at a time with a fresh delivery_id, its
// ack awaited at most 15 s and never resent; permission_cancel detaches), ...
//
// Every connection of a device with a configured Environment preparation is prepared first
// (environment.go, decided by the pure machine of package envprep: runtime_prepare, one transfer
// at a time, 195 s per exchange, a wrong receipt unknown, nothing replayed). A Turn is claimed on
// a connection only once its preparation completed; until then, and after one that ended rejected,
// failed or unknown, it stays queued — nothing was sent for it, and protocol-facts §6.2 has no
// reason for an Environment Core could not prepare — and is claimed at once when a preparation
// completes (the device's next connection prepares again).
//
// What a Turn does is decided by the pure state machine of package turn (turn.Step, with its
// explicit transition table). This package is its executor: one runner per Turn owns the
// connection, the subscriptions, the timers and the store writes, turns every input (a frame, an
// API call, a timer that fired) into an event, and carries out the effects in order. Each phase
// is committed before Core sends the frame it leads to, every received frame is journalled
// before the machine sees it, and an outcome is written once. Reconcile settles, after a restart,
// the Turns a previous process left in flight, from their committed phase only: they become
// failed with execution_interrupted, never completed and never dispatched again.
package execution
