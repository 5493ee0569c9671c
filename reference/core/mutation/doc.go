// Package mutation names the decision points where the reference Core can be made wrong in one
// way, to prove the Core-side scenario catalog catches it. Only a build with the wirecheck_mutants
// tag can switch a point on; in every other build On is a constant false and the points compile
// away, so the shipped Core has no mutant switch. It mirrors reference/daemon/mutation.
package mutation

// Point names one single-bug variant of the reference Core.
type Point string
