// Package daemon is the reference Runtime daemon: the model implementation of the Runtime side of
// the Core ↔ Runtime daemon protocol, written from runtime-protocol.md and protocol-facts.md.
//
// A Daemon bootstraps, dials Core's WebSocket, heartbeats its complete capability declaration and
// serves each physical connection with a fresh router: execution admission (execution_prepare,
// execution_start, execution_release and preparation_status), Runs and their ordered event streams,
// cancellation receipts that wait for native settlement, and device_shutdown. Native work runs
// outside the receive loop; every timer reads an injected clock. After a disconnect the daemon
// settles native work and closes its Executors before it reconnects, and it replays nothing.
//
// Every admission transition is decided by package admission, a pure state machine; the router
// only carries out the effects it returns. Native agents plug in through package harness; package
// contract is the controlled Harness that scenarios script through agent_options.contract.
package daemon
