// Package turn is the reference Core's Turn as a pure state machine:
//
//	Step(state, event) → (state, effects, error)
//
// Step does no I/O: it takes no lock, starts no goroutine, reads no clock or store and sends
// nothing. Everything that happens to a Turn reaches it as an Event (a preparation status, a Run
// frame, a cancellation request, a timer that fired, an effect that failed, a restart), with the
// facts it needs as data: the device's capability snapshot, a fresh request ID, the phase the
// durable record was left in. What Core must do next comes back as Effects, in the order they
// must be carried out: commit the record, journal, subscribe, send a frame, arm a timer, record
// the outcome. package execution owns the executor that carries them out.
//
// The table in table.go lists, for every phase, the events the phase accepts; any other event is
// an *InvalidTransition naming the phase and the event, and leaves the state unchanged. Every
// phase move an effect commits is also checked against the phase graph (moves.go).
//
// The executor's contract:
//   - Carry out the effects of a step in order; adopt the returned state only once all of them
//     succeeded. A commit is durable before the frame it leads to is sent.
//   - Journal every received frame before stepping its event (if that fails, step PersistFailed).
//   - Commits and journal events may be held and committed later, several steps' together, in
//     order, in one transaction, provided nothing else is carried out before they are durable:
//     if the store refuses them, restore the state from before the first step they belong to and
//     step PersistFailed, as if that step had failed alone.
//   - When an effect fails, carry out none after it, keep the state from before the step and
//     step the failure (SendFailed, SubscribeFailed, PersistFailed) with the phase the durable
//     record is in. A best-effort Send failing is not a failure of the step; a reported Send
//     failing is not either, but its SendFailed is stepped next, from the adopted state (the
//     step's commits stand: an input sent is recorded as sent, then as unknown).
//   - A query effect (CheckDevice, NewPrepareID) is answered by the next event
//     (DeviceChecked, PrepareIDIssued); nothing else is stepped before it.
//   - After Finish, the Turn owns nothing: close every subscription and stop every timer.
package turn
