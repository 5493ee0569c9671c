// Package conformance is the gate behind `make check-runtime-contract`: a Ginkgo suite with one
// spec per catalog scenario per pairing, labelled with the pairing's and the scenario's labels.
//
// The pairings live in package runner (`wirecheck run` plays the same ones, and the child-process
// pairing launches the daemon through the Target `wirecheck certify --runtime-cmd` uses); this
// package only turns them into specs. Before the specs run, every spec Ginkgo's filters select is
// started in one parallel batch, so each spec only waits for its own result: the gate's time
// follows its slowest lane rather than the sum of its scenarios.
package conformance
