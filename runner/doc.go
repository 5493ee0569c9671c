// Package runner plays scenarios and collects verdicts: against a Runtime under test (a Target
// launched per scenario: the reference daemon in process, a local command, a container image),
// played by the scripted Core; and in the gate's four pairings (Pairings), which conformance and
// `wirecheck run` both play through here. Every scenario gets a fresh connection, device and
// credential; every wait is bounded; plays run side by side in a Batch; results gathered before
// an interruption or a dying target are kept.
package runner
