// Package mutation names the decision points where the reference Runtime can be made wrong in one
// way, to prove the scenario catalog catches it. Only a build with the wirecheck_mutants tag can
// switch a point on; in every other build On is a constant false and the points compile away, so
// the shipped daemon has no mutant switch.
package mutation

// Point names one single-bug variant of the reference Runtime.
type Point string
