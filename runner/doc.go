// Package runner runs a selection of scenarios against a target and collects verdicts: a Runtime
// under test (launched per scenario through a Launcher: the reference daemon in process, a local
// process or a container image), played by the scripted Core. Every scenario gets a fresh
// connection, device and credential; every wait is bounded; scenarios run in parallel when asked;
// results gathered before an interruption or a dying target are kept.
package runner
