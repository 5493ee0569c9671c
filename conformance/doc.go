// Package conformance is the gate behind `make check-runtime-contract`: a Ginkgo suite with one
// spec per catalog scenario per pairing, labelled with the scenario's labels.
//
// The pairings themselves live in package runner (wirecheck run plays the same ones); this package
// only turns them into labelled specs. The scripted-vs-scripted self-check runs forever beside the real implementations: scriptedcore
// plays every scenario against scriptedruntime. A scenario the two scripts disagree on is a broken
// scenario, found before any implementation is blamed.
package conformance
