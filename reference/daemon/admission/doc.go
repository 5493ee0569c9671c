// Package admission is the execution admission of the reference Runtime (protocol-facts.md §4.3)
// as a pure protocol state machine: Apply takes an admission's record and one thing that happened
// to it, and returns the next record and the effects the daemon must carry out.
//
// Time is data: an event carries the instant it happened. There is no clock, lock, goroutine,
// timer or I/O here, so every rule of §4.3 can be read in one table (table.go) and tested as text
// (testdata/).
package admission
