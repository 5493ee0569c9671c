// Package e2e holds the reference Core's end-to-end tests: they build ./cmd/wirecheck, run
// `wirecheck core` as a child process and talk to it over loopback only (the crash test kills it
// with SIGKILL mid-Turn; the two-process test runs `wirecheck runtime` beside it).
package e2e
