// Package scenarios is the wire-scenario language: the model of one ordered Core ↔ Runtime
// conversation, a strict YAML loader whose errors carry file:line, placeholders that bind on first
// sight, matchers, includes, lint, the verdict model, and the embedded catalog.
//
// A scenario is written once and run from both ends: scriptedcore plays its `core` steps against a
// Runtime and checks the `runtime` steps; scriptedruntime does the reverse against a Core. Values a
// peer chooses (an executor ID, an admission handle, a Run ID a real Core picks) are written
// ${name}: the reader binds them the first time it sees them and every later use must repeat them;
// the writer resolves them, generating a value when nothing is bound yet.
package scenarios
