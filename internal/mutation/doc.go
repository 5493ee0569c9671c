// Package mutation is the one process-wide switch behind the reference sides' mutation points
// (reference/daemon/mutation, reference/core/mutation): at most one mutant, of either side, is
// active at a time. Only a build with the wirecheck_mutants tag can turn it; in every other build
// On is a constant false, so the points compile away and shipped binaries have no mutant switch.
package mutation
