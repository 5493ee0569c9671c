// Package input is the pure per-Run state machine of active input (prompt_steer, protocol-facts
// §4.11): which receipt each prompt_steer gets, when the native write starts, what a write or a
// native consumption verdict turns into on the wire, and when the Run's done may go out. It does
// no I/O and reads no clock: the daemon feeds it events and executes the effects it returns.
package input
