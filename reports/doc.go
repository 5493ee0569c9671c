// Package reports is the results model of a certification run and the reports a third party reads
// after `wirecheck certify`: JUnit XML (Jenkins, GitLab), JSON with a documented schema, a Markdown
// summary fit for a pull-request comment, one self-contained HTML file, and the evidence bundle
// holding them all.
//
// # Model
//
// A Run holds what was certified (Tool, WireVersion, Target, Seed, Started, Finished), the
// capability profile the daemon declared for kind `contract` (Profile, from its first heartbeat:
// ProfileFromHeartbeat, or DetectProfile over the transcripts), what was selected (Selection), and
// one Case per scenario played: its *scenarios.Result and whether it is listed as known failing.
//
//	run := &reports.Run{Tool: "wirecheck 0.3.0", WireVersion: proto.Version, Target: "image: localhost/x:1",
//		Seed: seed, Started: t0, Finished: t1, Profile: reports.ProfileFromHeartbeat(firstHeartbeat),
//		Redact: []string{credential}}
//	for _, res := range results {
//		run.Cases = append(run.Cases, reports.Case{Result: res, KnownFailing: known[res.Scenario]})
//	}
//	fmt.Println(run.ProfileLine())
//	err := reports.WriteBundle(outDir, run)
//	os.Exit(run.ExitCode())
//
// Case.Outcome reads a verdict with KnownFailing: a known-failing case that fails is an
// ExpectedFail, one that passes an UnexpectedPass (the list is stale, and the run fails).
// Run.Summary counts by verdict. Run.OK is true only if at least one applicable case ran, every
// applicable case passed, every known-failing case failed, no harness error occurred, and the
// daemon's heartbeat advertised kind contract as available (no certificate without the kind the
// scenarios run on); an inconclusive case is not a pass. Run.Reasons says why not, the missing
// kind first. Run.ProfileLine is the line at the top of every report:
//
//	profile: contract [streaming, environment_none, preparation] — 71/71 applicable passed, 4 not applicable — CERTIFIED
//	profile: kind contract not advertised — 17/17 applicable passed, 55 not applicable — NOT CERTIFIED: kind contract is not advertised (a certificate requires it)
//
// Run.ExitCode is the exit status for certify: 0 only when OK, 2 when the only problems are
// harness errors (the verdict is incomplete: retry), 1 otherwise.
//
// Run.Causes groups the cases that need attention by root cause (Failure.Cause, else the first
// line of the message with generated values normalised), so 72 failures with one cause read as
// one; WriteCauses prints them for the last lines of a terminal. Every report leads a failure with
// its first reason in plain words (the cause, else the message's first line), then where it
// happened: step and file:line, or "before the first step" and the scenario's file:line.
//
// # Writers
//
// WriteJUnit, WriteJSON, WriteMarkdown and WriteHTML each write one report to an io.Writer;
// WriteBundle(dir, run) writes all four into an empty directory with report.schema.json, one
// journals/<id with "/" → "__">.jsonl per case (package journal: hash-chained, its anchor signed
// by WriteSignedBundle's key), one transcripts/<same>.jsonl per case, one daemons/<same>.log per
// case that launched a daemon and a manifest.json holding the SHA-256 of every file, signed by
// WriteSignedBundle's key in manifest.json.sig. In a bundle the reports render each case's frames
// and events from its journal; CheckVerdicts checks that report.json says what the journals hold. Writers never change the Run,
// and print only times it holds, so the same Run renders to the same bytes; cases are always in
// id order, transcripts in time order. Each daemon's output is kept to its last OutputLines lines
// and OutputBytes bytes.
//
// Spec references ("runtime-protocol.md#anchor") are links only to what the report can vouch
// for: with Run.SpecDirs, the HTML quotes every cited section and links to the quote; with
// Run.SpecBase, they link under it; otherwise they are plain text, and the page says why.
//
// Frames come from an untrusted daemon: the XML and HTML writers escape everything (the HTML's one
// inline script is pinned by hash in a Content-Security-Policy), and the Markdown writer keeps
// anything a daemon could influence inside code spans and fenced blocks. Credentials travel only in
// headers, but every secret in Run.Redact, and its JSON-escaped forms, is replaced by [REDACTED] in
// every string of the model before any writer sees it.
//
// The JSON report's shape is report.schema.json (JSON Schema 2020-12; JSONSchema returns it), with
// schema_version SchemaVersion.
//
// The package imports only scenarios, proto and the standard library: the runner calls it, never
// the other way round.
package reports
