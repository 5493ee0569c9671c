package proto_test

import (
	"fmt"
	"strings"
	"testing"
)

// Transfers: runtime_prepare and workspace_write (facts §4.2, §4.14) and their receipts.

func TestRulesRuntimePrepare(t *testing.T)       { runCases(t, transferCases()) }
func TestRulesRuntimePrepareResult(t *testing.T) { runCases(t, prepareResultCases()) }
func TestRulesWorkspaceWrite(t *testing.T)       { runCases(t, writeCases()) }
func TestRulesWorkspaceWriteResult(t *testing.T) { runCases(t, writeResultCases()) }

// prep builds a runtime_prepare frame from payload members written between braces.
func prep(members string) string { return frame("runtime_prepare", "$TID", "{"+members+"}") }

// begin is the common head of a begin step.
const begin = `"step":"begin","environment_id":"$ENV","session_id":"$SES",`

func transferCases() []frameCase {
	type c = frameCase
	file := func(path string) string {
		return prep(begin + `"action":"file","file":{"path":` + jstr(path) + `},"size_bytes":5,"sha256":"$SHA"`)
	}
	skill := `"skill":{"type":"inline","name":"review","description":"Reviews code"}`
	plugin := `"plugin":{"type":"inline","name":"lint","description":"Lints code"}`
	initialize := func(init string) string {
		return prep(begin + `"action":"initialize","initialization":` + init)
	}
	finalize := func(sources string) string { return prep(begin + `"action":"finalize","sources":` + sources) }
	inline := func(i int) string { return fmt.Sprintf(`{"type":"inline","name":"n%d","description":"d"}`, i) }
	dir := func(i int) string { return fmt.Sprintf(`"/opt/capabilities/%d"`, i) }
	env := func(n int) string {
		return "{" + strings.TrimSuffix(strings.TrimPrefix(jsonList(n, func(i int) string { return fmt.Sprintf(`"K%d":"v"`, i) }), "["), "]") + "}"
	}
	pkgs := func(n int) string { return jsonList(n, func(i int) string { return fmt.Sprintf(`"pkg%d"`, i) }) }
	const mib50 = 50 << 20

	cases := []frameCase{
		{rule: "runtime_prepare: step is begin, chunk or commit", frame: file("/workspace/notes.txt")},
		{rule: "runtime_prepare: step is begin, chunk or commit", frame: prep(`"step":"chunk","offset":0,"data":"aGVsbG8="`)},
		{rule: "runtime_prepare: step is begin, chunk or commit", frame: prep(`"step":"commit"`)},
		{rule: "runtime_prepare: step is begin, chunk or commit", frame: prep(`"step":"abort"`), want: "runtime_prepare.step: must be begin, chunk or commit"},
		{rule: "runtime_prepare: step is begin, chunk or commit", frame: prep(`"step":"Begin"`), want: "runtime_prepare.step: must be begin, chunk or commit"},
		{rule: "runtime_prepare: step is begin, chunk or commit", frame: prep(`"offset":0`), want: "runtime_prepare.step: is required"},

		{rule: "runtime_prepare begin: environment_id and session_id are canonical lowercase non-nil UUIDs", frame: file("/workspace/a")},
		{rule: "runtime_prepare begin: environment_id and session_id are canonical lowercase non-nil UUIDs",
			frame: prep(`"step":"begin","environment_id":"` + strings.ToUpper(envUUID) + `","session_id":"$SES","action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"$SHA"`),
			want:  "runtime_prepare.begin.environment_id: must be a canonical lowercase non-nil UUID"},
		{rule: "runtime_prepare begin: environment_id and session_id are canonical lowercase non-nil UUIDs",
			frame: prep(`"step":"begin","environment_id":"{$ENV}","session_id":"$SES","action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"$SHA"`),
			want:  "runtime_prepare.begin.environment_id: must be a canonical lowercase non-nil UUID"},
		{rule: "runtime_prepare begin: environment_id and session_id are canonical lowercase non-nil UUIDs",
			frame: prep(`"step":"begin","session_id":"$SES","action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"$SHA"`),
			want:  "runtime_prepare.begin.environment_id: must be a canonical lowercase non-nil UUID"},
		{rule: "runtime_prepare begin: environment_id and session_id are canonical lowercase non-nil UUIDs",
			frame: prep(`"step":"begin","environment_id":"$ENV","session_id":"00000000-0000-0000-0000-000000000000","action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"$SHA"`),
			want:  "runtime_prepare.begin.session_id: must be a canonical lowercase non-nil UUID"},
		{rule: "runtime_prepare begin: environment_id and session_id are canonical lowercase non-nil UUIDs",
			frame: prep(`"step":"begin","environment_id":"$ENV","session_id":"session-1","action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"$SHA"`),
			want:  "runtime_prepare.begin.session_id: must be a canonical lowercase non-nil UUID"},

		{rule: "runtime_prepare begin: offset 0 and no data", frame: prep(begin + `"action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"$SHA","offset":0`)},
		{rule: "runtime_prepare begin: offset 0 and no data", frame: prep(begin + `"action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"$SHA","offset":5`), want: "runtime_prepare.begin: must carry offset 0 and no data"},
		{rule: "runtime_prepare begin: offset 0 and no data", frame: prep(begin + `"action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"$SHA","data":"aGVsbG8="`), want: "runtime_prepare.begin: must carry offset 0 and no data"},

		{rule: "runtime_prepare begin: action is skill, plugin, file, initialize or finalize", frame: prep(begin + `"action":"skill",` + skill + `,"size_bytes":5,"sha256":"$SHA"`)},
		{rule: "runtime_prepare begin: action is skill, plugin, file, initialize or finalize", frame: prep(begin + `"action":"archive","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.action: must be skill, plugin, file, initialize or finalize"},
		{rule: "runtime_prepare begin: action is skill, plugin, file, initialize or finalize", frame: prep(begin + `"file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.action: must be skill, plugin, file, initialize or finalize"},

		{rule: "runtime_prepare begin: exactly one header, the one matching the action", frame: prep(begin + `"action":"plugin","slot":3,` + plugin + `,"size_bytes":5,"sha256":"$SHA"`)},
		{rule: "runtime_prepare begin: exactly one header, the one matching the action", frame: prep(begin + `"action":"file","file":{"path":"/workspace/a"},` + skill + `,"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.skill: must be absent for action file (begin carries exactly one header)"},
		{rule: "runtime_prepare begin: exactly one header, the one matching the action", frame: prep(begin + `"action":"skill",` + plugin + `,"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.plugin: must be absent for action skill (begin carries exactly one header)"},
		{rule: "runtime_prepare begin: exactly one header, the one matching the action", frame: prep(begin + `"action":"finalize","sources":{},"initialization":{"action":"configure"}`), want: "runtime_prepare.begin.initialization: must be absent for action finalize (begin carries exactly one header)"},
		{rule: "runtime_prepare begin: exactly one header, the one matching the action", frame: prep(begin + `"action":"initialize","initialization":{"action":"configure"},"sources":{}`), want: "runtime_prepare.begin.sources: must be absent for action initialize (begin carries exactly one header)"},
		{rule: "runtime_prepare begin: exactly one header, the one matching the action", frame: prep(begin + `"action":"file","size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.file: is required for action file"},
		{rule: "runtime_prepare begin: exactly one header, the one matching the action", frame: prep(begin + `"action":"skill","size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.skill: is required for action skill"},
		{rule: "runtime_prepare begin: exactly one header, the one matching the action", frame: prep(begin + `"action":"plugin","size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.plugin: is required for action plugin"},
		{rule: "runtime_prepare begin: exactly one header, the one matching the action", frame: prep(begin + `"action":"initialize"`), want: "runtime_prepare.begin.initialization: is required for action initialize"},
		{rule: "runtime_prepare begin: exactly one header, the one matching the action", frame: prep(begin + `"action":"finalize"`), want: "runtime_prepare.begin.sources: is required for action finalize"},
		{rule: "runtime_prepare begin: exactly one header, the one matching the action", frame: prep(begin + `"action":"file","file":null,"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.file: must not be null"},

		{rule: "runtime_prepare begin: slot is 0–49, and only plugin may set it", frame: prep(begin + `"action":"plugin","slot":0,` + plugin + `,"size_bytes":5,"sha256":"$SHA"`)},
		{rule: "runtime_prepare begin: slot is 0–49, and only plugin may set it", frame: prep(begin + `"action":"plugin","slot":49,` + plugin + `,"size_bytes":5,"sha256":"$SHA"`)},
		{rule: "runtime_prepare begin: slot is 0–49, and only plugin may set it", frame: prep(begin + `"action":"plugin","slot":50,` + plugin + `,"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.slot: must be between 0 and 49"},
		{rule: "runtime_prepare begin: slot is 0–49, and only plugin may set it", frame: prep(begin + `"action":"plugin","slot":-1,` + plugin + `,"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.slot: must be between 0 and 49"},
		{rule: "runtime_prepare begin: slot is 0–49, and only plugin may set it", frame: prep(begin + `"action":"skill","slot":1,` + skill + `,"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.slot: must be 0 unless action is plugin"},
		{rule: "runtime_prepare begin: slot is 0–49, and only plugin may set it", frame: prep(begin + `"action":"file","slot":2,"file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.slot: must be 0 unless action is plugin"},
		{rule: "runtime_prepare begin: slot is 0–49, and only plugin may set it", frame: prep(begin + `"action":"finalize","slot":2,"sources":{}`), want: "runtime_prepare.begin.slot: must be 0 unless action is plugin"},

		{rule: "runtime_prepare begin: an inline skill or plugin header has type inline and a non-empty name and description", frame: prep(begin + `"action":"skill",` + skill + `,"size_bytes":5,"sha256":"$SHA"`)},
		{rule: "runtime_prepare begin: an inline skill or plugin header has type inline and a non-empty name and description", frame: prep(begin + `"action":"skill","skill":{"type":"zip","name":"n","description":"d"},"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.skill.type: must be inline"},
		{rule: "runtime_prepare begin: an inline skill or plugin header has type inline and a non-empty name and description", frame: prep(begin + `"action":"skill","skill":{"type":"inline","name":"","description":"d"},"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.skill.name: must be non-empty UTF-8"},
		{rule: "runtime_prepare begin: an inline skill or plugin header has type inline and a non-empty name and description", frame: prep(begin + `"action":"plugin","plugin":{"type":"inline","name":"n","description":""},"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.begin.plugin.description: must be non-empty UTF-8"},
		{rule: "runtime_prepare begin: an inline skill or plugin header has type inline and a non-empty name and description", frame: prep(begin + `"action":"plugin","plugin":{"type":"inline","name":"n"},"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.plugin.description: is required"},

		{rule: "runtime_prepare begin: size_bytes is 0 to 50 MiB", frame: prep(begin + `"action":"file","file":{"path":"/workspace/big"},"size_bytes":52428800,"sha256":"$SHA"`)},
		{rule: "runtime_prepare begin: size_bytes is 0 to 50 MiB", frame: prep(begin + `"action":"file","file":{"path":"/workspace/big"},"size_bytes":52428801,"sha256":"$SHA"`), want: "runtime_prepare.begin.size_bytes: must be between 0 and 52428800 bytes"},
		{rule: "runtime_prepare begin: size_bytes is 0 to 50 MiB", frame: prep(begin + `"action":"file","file":{"path":"/workspace/big"},"size_bytes":-1,"sha256":"$SHA"`), want: "runtime_prepare.begin.size_bytes: must be between 0 and 52428800 bytes"},
		{rule: "runtime_prepare begin: size_bytes is 0 to 50 MiB", frame: prep(begin + `"action":"file","file":{"path":"/workspace/big"},"size_bytes":5.0,"sha256":"$SHA"`), want: "runtime_prepare.size_bytes: must be a JSON integer"},

		{rule: "runtime_prepare begin: size 0 is allowed only for file", frame: prep(begin + `"action":"file","file":{"path":"/workspace/empty"},"size_bytes":0,"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"`)},
		{rule: "runtime_prepare begin: size 0 is allowed only for file", frame: prep(begin + `"action":"file","file":{"path":"/workspace/empty"},"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"`)},
		{rule: "runtime_prepare begin: size 0 is allowed only for file", frame: prep(begin + `"action":"skill",` + skill + `,"size_bytes":0,"sha256":"$SHA"`), want: "runtime_prepare.begin.size_bytes: must be greater than 0 for skill"},
		{rule: "runtime_prepare begin: size 0 is allowed only for file", frame: prep(begin + `"action":"plugin",` + plugin + `,"sha256":"$SHA"`), want: "runtime_prepare.begin.size_bytes: must be greater than 0 for plugin"},

		{rule: "runtime_prepare begin: initialize and finalize carry size_bytes 0 and no sha256", frame: initialize(`{"action":"configure","env":{"A":"1"}}`)},
		{rule: "runtime_prepare begin: initialize and finalize carry size_bytes 0 and no sha256", frame: finalize(`{}`)},
		{rule: "runtime_prepare begin: initialize and finalize carry size_bytes 0 and no sha256", frame: prep(begin + `"action":"initialize","initialization":{"action":"configure"},"size_bytes":3`), want: "runtime_prepare.begin.size_bytes: must be 0 for initialize (headers carry no file data)"},
		{rule: "runtime_prepare begin: initialize and finalize carry size_bytes 0 and no sha256", frame: prep(begin + `"action":"initialize","initialization":{"action":"configure"},"sha256":"$SHA"`), want: "runtime_prepare.begin.sha256: must be empty for initialize"},
		{rule: "runtime_prepare begin: initialize and finalize carry size_bytes 0 and no sha256", frame: prep(begin + `"action":"finalize","sources":{},"size_bytes":1`), want: "runtime_prepare.begin.size_bytes: must be 0 for finalize (headers carry no file data)"},
		{rule: "runtime_prepare begin: initialize and finalize carry size_bytes 0 and no sha256", frame: prep(begin + `"action":"finalize","sources":{},"sha256":"$SHA"`), want: "runtime_prepare.begin.sha256: must be empty for finalize"},

		{rule: "runtime_prepare begin: sha256 is 64 lowercase hex for skill, plugin and file", frame: file("/workspace/a")},
		{rule: "runtime_prepare begin: sha256 is 64 lowercase hex for skill, plugin and file", frame: prep(begin + `"action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"ABC"`), want: "runtime_prepare.begin.sha256: must be 64 lowercase hex characters"},
		{rule: "runtime_prepare begin: sha256 is 64 lowercase hex for skill, plugin and file", frame: prep(begin + `"action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"` + strings.ToUpper(helloSHA) + `"`), want: "runtime_prepare.begin.sha256: must be 64 lowercase hex characters"},
		{rule: "runtime_prepare begin: sha256 is 64 lowercase hex for skill, plugin and file", frame: prep(begin + `"action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"` + helloSHA[:63] + `"`), want: "runtime_prepare.begin.sha256: must be 64 lowercase hex characters"},
		{rule: "runtime_prepare begin: sha256 is 64 lowercase hex for skill, plugin and file", frame: prep(begin + `"action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"` + helloSHA + `0"`), want: "runtime_prepare.begin.sha256: must be 64 lowercase hex characters"},
		{rule: "runtime_prepare begin: sha256 is 64 lowercase hex for skill, plugin and file", frame: prep(begin + `"action":"file","file":{"path":"/workspace/a"},"size_bytes":5,"sha256":"` + strings.Repeat("g", 64) + `"`), want: "runtime_prepare.begin.sha256: must be 64 lowercase hex characters"},
		{rule: "runtime_prepare begin: sha256 is 64 lowercase hex for skill, plugin and file", frame: prep(begin + `"action":"skill",` + skill + `,"size_bytes":5`), want: "runtime_prepare.begin.sha256: must be 64 lowercase hex characters"},
		{rule: "runtime_prepare begin: sha256 is 64 lowercase hex for skill, plugin and file", frame: prep(begin + `"action":"plugin",` + plugin + `,"size_bytes":5,"sha256":""`), want: "runtime_prepare.begin.sha256: must be 64 lowercase hex characters"},

		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace/notes.txt")},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace/a b/ü.md")},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace/" + strings.Repeat("p", 4096-len("/workspace/")))},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace/" + strings.Repeat("p", 4097-len("/workspace/"))), want: "runtime_prepare.begin.file.path: must be at most 4096 bytes"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace"), want: "runtime_prepare.begin.file.path: must be a clean path below /workspace/"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace/"), want: "runtime_prepare.begin.file.path: must be a clean path below /workspace/"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/etc/passwd"), want: "runtime_prepare.begin.file.path: must be a clean path below /workspace/"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("workspace/a"), want: "runtime_prepare.begin.file.path: must be a clean path below /workspace/"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspacex/a"), want: "runtime_prepare.begin.file.path: must be a clean path below /workspace/"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace/../etc/passwd"), want: "runtime_prepare.begin.file.path: must be a clean path below /workspace/"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace/a//b"), want: "runtime_prepare.begin.file.path: must be a clean path below /workspace/"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace/./a"), want: "runtime_prepare.begin.file.path: must be a clean path below /workspace/"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace/a/"), want: "runtime_prepare.begin.file.path: must be a clean path below /workspace/"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file(`/workspace/a\b`), want: "runtime_prepare.begin.file.path: must not contain a backslash, NUL, CR or LF"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace/a\x00b"), want: "runtime_prepare.begin.file.path: must not contain a backslash, NUL, CR or LF"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace/a\rb"), want: "runtime_prepare.begin.file.path: must not contain a backslash, NUL, CR or LF"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: file("/workspace/a\nb"), want: "runtime_prepare.begin.file.path: must not contain a backslash, NUL, CR or LF"},
		{rule: "runtime_prepare begin: file.path is a clean path below /workspace/ of at most 4096 bytes without \\, NUL, CR or LF", frame: prep(begin + `"action":"file","file":{},"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.file.path: is required"},

		{rule: "runtime_prepare begin: initialization.action is configure, npm, python or setup", frame: initialize(`{"action":"configure"}`)},
		{rule: "runtime_prepare begin: initialization.action is configure, npm, python or setup", frame: initialize(`{"action":"npm","packages":["typescript@5"]}`)},
		{rule: "runtime_prepare begin: initialization.action is configure, npm, python or setup", frame: initialize(`{"action":"python","packages":["requests==2.32"]}`)},
		{rule: "runtime_prepare begin: initialization.action is configure, npm, python or setup", frame: initialize(`{"action":"setup","command":"make deps","cwd":"/workspace"}`)},
		{rule: "runtime_prepare begin: initialization.action is configure, npm, python or setup", frame: initialize(`{"action":"apt","packages":["git"]}`), want: "runtime_prepare.begin.initialization.packages: is only allowed for actions npm and python"},
		{rule: "runtime_prepare begin: initialization.action is configure, npm, python or setup", frame: initialize(`{"action":"apt"}`), want: "runtime_prepare.begin.initialization.action: must be configure, npm, python or setup"},
		{rule: "runtime_prepare begin: initialization.action is configure, npm, python or setup", frame: initialize(`{"env":{"A":"1"}}`), want: "runtime_prepare.initialization.action: is required"},

		{rule: "runtime_prepare begin: initialization env is for configure only", frame: initialize(`{"action":"configure","env":{"PATH":"/usr/bin","EMPTY":""}}`)},
		{rule: "runtime_prepare begin: initialization env is for configure only", frame: initialize(`{"action":"npm","packages":["x"],"env":{"A":"1"}}`), want: "runtime_prepare.begin.initialization.env: is only allowed for action configure"},
		{rule: "runtime_prepare begin: initialization env is for configure only", frame: initialize(`{"action":"setup","command":"make","env":{}}`), want: "runtime_prepare.begin.initialization.env: is only allowed for action configure"},
		{rule: "runtime_prepare begin: initialization env has at most 1000 entries", frame: initialize(`{"action":"configure","env":` + env(1000) + `}`)},
		{rule: "runtime_prepare begin: initialization env has at most 1000 entries", frame: initialize(`{"action":"configure","env":` + env(1001) + `}`), want: "runtime_prepare.begin.initialization.env: must have at most 1000 entries"},
		{rule: "runtime_prepare begin: initialization env keys are non-empty without =, NUL, CR or LF; values have no NUL", frame: initialize(`{"action":"configure","env":{"A_B":"x=y\nz"}}`)},
		{rule: "runtime_prepare begin: initialization env keys are non-empty without =, NUL, CR or LF; values have no NUL", frame: initialize(`{"action":"configure","env":{"A=B":"1"}}`), want: "runtime_prepare.begin.initialization.env: keys must be non-empty without =, NUL, CR or LF"},
		{rule: "runtime_prepare begin: initialization env keys are non-empty without =, NUL, CR or LF; values have no NUL", frame: initialize(`{"action":"configure","env":{"":"1"}}`), want: "runtime_prepare.begin.initialization.env: keys must be non-empty without =, NUL, CR or LF"},
		{rule: "runtime_prepare begin: initialization env keys are non-empty without =, NUL, CR or LF; values have no NUL", frame: initialize(`{"action":"configure","env":{"A\nB":"1"}}`), want: "runtime_prepare.begin.initialization.env: keys must be non-empty without =, NUL, CR or LF"},
		{rule: "runtime_prepare begin: initialization env keys are non-empty without =, NUL, CR or LF; values have no NUL", frame: initialize(`{"action":"configure","env":{"A\u0000":"1"}}`), want: "runtime_prepare.begin.initialization.env: keys must be non-empty without =, NUL, CR or LF"},
		{rule: "runtime_prepare begin: initialization env keys are non-empty without =, NUL, CR or LF; values have no NUL", frame: initialize(`{"action":"configure","env":{"TOKEN":"a\u0000b"}}`), want: "runtime_prepare.begin.initialization.env.TOKEN: must not contain NUL"},
		{rule: "runtime_prepare begin: initialization env keys are non-empty without =, NUL, CR or LF; values have no NUL", frame: initialize(`{"action":"configure","env":{"A":1}}`), want: "runtime_prepare.initialization.env.A: must be a JSON string"},

		{rule: "runtime_prepare begin: initialization packages are for npm and python only, 1 to 1000 entries", frame: initialize(`{"action":"npm","packages":` + pkgs(1000) + `}`)},
		{rule: "runtime_prepare begin: initialization packages are for npm and python only, 1 to 1000 entries", frame: initialize(`{"action":"python","packages":` + pkgs(1001) + `}`), want: "runtime_prepare.begin.initialization.packages: must have 1 to 1000 entries"},
		{rule: "runtime_prepare begin: initialization packages are for npm and python only, 1 to 1000 entries", frame: initialize(`{"action":"npm","packages":[]}`), want: "runtime_prepare.begin.initialization.packages: must have 1 to 1000 entries"},
		{rule: "runtime_prepare begin: initialization packages are for npm and python only, 1 to 1000 entries", frame: initialize(`{"action":"python"}`), want: "runtime_prepare.begin.initialization.packages: must have 1 to 1000 entries"},
		{rule: "runtime_prepare begin: initialization packages are for npm and python only, 1 to 1000 entries", frame: initialize(`{"action":"configure","packages":["x"]}`), want: "runtime_prepare.begin.initialization.packages: is only allowed for actions npm and python"},
		{rule: "runtime_prepare begin: initialization packages are for npm and python only, 1 to 1000 entries", frame: initialize(`{"action":"setup","command":"make","packages":[]}`), want: "runtime_prepare.begin.initialization.packages: is only allowed for actions npm and python"},
		{rule: "runtime_prepare begin: each package is non-empty, does not start with -, and has no NUL, CR or LF", frame: initialize(`{"action":"npm","packages":["@scope/pkg@1.2.3","left-pad"]}`)},
		{rule: "runtime_prepare begin: each package is non-empty, does not start with -, and has no NUL, CR or LF", frame: initialize(`{"action":"npm","packages":["ok","--registry=http://evil"]}`), want: "runtime_prepare.begin.initialization.packages[1]: must be non-empty, not start with -, and have no NUL, CR or LF"},
		{rule: "runtime_prepare begin: each package is non-empty, does not start with -, and has no NUL, CR or LF", frame: initialize(`{"action":"python","packages":[""]}`), want: "runtime_prepare.begin.initialization.packages[0]: must be non-empty, not start with -, and have no NUL, CR or LF"},
		{rule: "runtime_prepare begin: each package is non-empty, does not start with -, and has no NUL, CR or LF", frame: initialize(`{"action":"python","packages":["a\nb"]}`), want: "runtime_prepare.begin.initialization.packages[0]: must be non-empty, not start with -, and have no NUL, CR or LF"},
		{rule: "runtime_prepare begin: each package is non-empty, does not start with -, and has no NUL, CR or LF", frame: initialize(`{"action":"python","packages":["a\rb"]}`), want: "runtime_prepare.begin.initialization.packages[0]: must be non-empty, not start with -, and have no NUL, CR or LF"},
		{rule: "runtime_prepare begin: each package is non-empty, does not start with -, and has no NUL, CR or LF", frame: initialize(`{"action":"python","packages":["a\u0000"]}`), want: "runtime_prepare.begin.initialization.packages[0]: must be non-empty, not start with -, and have no NUL, CR or LF"},
		{rule: "runtime_prepare begin: each package is non-empty, does not start with -, and has no NUL, CR or LF", frame: initialize(`{"action":"python","packages":[null]}`), want: "runtime_prepare.initialization.packages[0]: must not be null"},

		{rule: "runtime_prepare begin: setup has a non-empty command without NUL; command and cwd are for setup only", frame: initialize(`{"action":"setup","command":"./install.sh --yes\necho done"}`)},
		{rule: "runtime_prepare begin: setup has a non-empty command without NUL; command and cwd are for setup only", frame: initialize(`{"action":"setup"}`), want: "runtime_prepare.begin.initialization.command: must be non-empty UTF-8 without NUL"},
		{rule: "runtime_prepare begin: setup has a non-empty command without NUL; command and cwd are for setup only", frame: initialize(`{"action":"setup","command":"make\u0000"}`), want: "runtime_prepare.begin.initialization.command: must be non-empty UTF-8 without NUL"},
		{rule: "runtime_prepare begin: setup has a non-empty command without NUL; command and cwd are for setup only", frame: initialize(`{"action":"configure","command":"make"}`), want: "runtime_prepare.begin.initialization.command: is only allowed for action setup"},
		{rule: "runtime_prepare begin: setup has a non-empty command without NUL; command and cwd are for setup only", frame: initialize(`{"action":"npm","packages":["x"],"cwd":"/workspace"}`), want: "runtime_prepare.begin.initialization.cwd: is only allowed for action setup"},
		{rule: "runtime_prepare begin: setup cwd is /workspace or below it", frame: initialize(`{"action":"setup","command":"make","cwd":"/workspace"}`)},
		{rule: "runtime_prepare begin: setup cwd is /workspace or below it", frame: initialize(`{"action":"setup","command":"make","cwd":"/workspace/app/web"}`)},
		{rule: "runtime_prepare begin: setup cwd is /workspace or below it", frame: initialize(`{"action":"setup","command":"make","cwd":"/tmp"}`), want: "runtime_prepare.begin.initialization.cwd: must be /workspace or below it"},
		{rule: "runtime_prepare begin: setup cwd is /workspace or below it", frame: initialize(`{"action":"setup","command":"make","cwd":"/workspacefoo"}`), want: "runtime_prepare.begin.initialization.cwd: must be /workspace or below it"},
		{rule: "runtime_prepare begin: setup cwd is /workspace or below it", frame: initialize(`{"action":"setup","command":"make","cwd":"workspace"}`), want: "runtime_prepare.begin.initialization.cwd: must be /workspace or below it"},
		{rule: "runtime_prepare begin: setup cwd is /workspace or below it", frame: initialize(`{"action":"setup","command":"make","cwd":"/workspace/../etc"}`), want: "runtime_prepare.begin.initialization.cwd: must be a clean path"},
		{rule: "runtime_prepare begin: setup cwd is /workspace or below it", frame: initialize(`{"action":"setup","command":"make","cwd":"/workspace/app/"}`), want: "runtime_prepare.begin.initialization.cwd: must be a clean path"},

		{rule: "runtime_prepare begin: finalize sources are required and may be empty", frame: finalize(`{}`)},
		{rule: "runtime_prepare begin: finalize sources are required and may be empty", frame: finalize(`{"skills":[` + inline(0) + `],"plugins":[` + inline(1) + `],"directories":["/opt/skills"]}`)},
		{rule: "runtime_prepare begin: finalize sources are required and may be empty", frame: finalize(`null`), want: "runtime_prepare.sources: must not be null"},
		{rule: "runtime_prepare begin: finalize sources are required and may be empty", frame: finalize(`[]`), want: "runtime_prepare.sources: must be a JSON object"},
		{rule: "runtime_prepare begin: finalize sources have at most 50 skills, 50 plugins and 50 directories", frame: finalize(`{"skills":` + jsonList(50, inline) + `,"plugins":` + jsonList(50, inline) + `,"directories":` + jsonList(50, dir) + `}`)},
		{rule: "runtime_prepare begin: finalize sources have at most 50 skills, 50 plugins and 50 directories", frame: finalize(`{"skills":` + jsonList(51, inline) + `}`), want: "runtime_prepare.begin.sources.skills: must have at most 50 entries"},
		{rule: "runtime_prepare begin: finalize sources have at most 50 skills, 50 plugins and 50 directories", frame: finalize(`{"plugins":` + jsonList(51, inline) + `}`), want: "runtime_prepare.begin.sources.plugins: must have at most 50 entries"},
		{rule: "runtime_prepare begin: finalize sources have at most 50 skills, 50 plugins and 50 directories", frame: finalize(`{"directories":` + jsonList(51, dir) + `}`), want: "runtime_prepare.begin.sources.directories: must have at most 50 entries"},
		{rule: "runtime_prepare begin: finalize source skills and plugins are inline with a name and description", frame: finalize(`{"skills":[{"type":"inline","name":"n","description":"d"}]}`)},
		{rule: "runtime_prepare begin: finalize source skills and plugins are inline with a name and description", frame: finalize(`{"skills":[{"type":"inline","name":"n","description":"d"},{"type":"remote","name":"n","description":"d"}]}`), want: "runtime_prepare.begin.sources.skills[1].type: must be inline"},
		{rule: "runtime_prepare begin: finalize source skills and plugins are inline with a name and description", frame: finalize(`{"plugins":[{"type":"inline","name":"","description":"d"}]}`), want: "runtime_prepare.begin.sources.plugins[0].name: must be non-empty UTF-8"},
		{rule: "runtime_prepare begin: finalize source directories are unique, canonical, non-empty and at most 4096 bytes", frame: finalize(`{"directories":["/opt/a","/opt/b","relative/dir","/` + strings.Repeat("d", 4095) + `"]}`)},
		{rule: "runtime_prepare begin: finalize source directories are unique, canonical, non-empty and at most 4096 bytes", frame: finalize(`{"directories":["/opt/a","/opt/a"]}`), want: "runtime_prepare.begin.sources.directories[1]: must be unique"},
		{rule: "runtime_prepare begin: finalize source directories are unique, canonical, non-empty and at most 4096 bytes", frame: finalize(`{"directories":["/opt/a/../b"]}`), want: "runtime_prepare.begin.sources.directories[0]: must be canonical (path.Clean-stable)"},
		{rule: "runtime_prepare begin: finalize source directories are unique, canonical, non-empty and at most 4096 bytes", frame: finalize(`{"directories":["/opt/a/"]}`), want: "runtime_prepare.begin.sources.directories[0]: must be canonical (path.Clean-stable)"},
		{rule: "runtime_prepare begin: finalize source directories are unique, canonical, non-empty and at most 4096 bytes", frame: finalize(`{"directories":["./a"]}`), want: "runtime_prepare.begin.sources.directories[0]: must be canonical (path.Clean-stable)"},
		{rule: "runtime_prepare begin: finalize source directories are unique, canonical, non-empty and at most 4096 bytes", frame: finalize(`{"directories":["C:\\skills\\review"]}`)},
		{rule: "runtime_prepare begin: finalize source directories are unique, canonical, non-empty and at most 4096 bytes", frame: finalize(`{"directories":["/opt/a\\b/../c"]}`), want: "runtime_prepare.begin.sources.directories[0]: must be canonical (path.Clean-stable)"},
		{rule: "runtime_prepare begin: finalize source directories are unique, canonical, non-empty and at most 4096 bytes", frame: finalize(`{"directories":["/opt/x\\y/b","/opt/x\\y/./b"]}`), want: "runtime_prepare.begin.sources.directories[1]: must be canonical (path.Clean-stable)"},
		{rule: "runtime_prepare begin: finalize source directories are unique, canonical, non-empty and at most 4096 bytes", frame: finalize(`{"directories":[""]}`), want: "runtime_prepare.begin.sources.directories[0]: must be a non-empty directory of at most 4096 bytes without NUL, CR or LF"},
		{rule: "runtime_prepare begin: finalize source directories are unique, canonical, non-empty and at most 4096 bytes", frame: finalize(`{"directories":["/` + strings.Repeat("d", 4096) + `"]}`), want: "runtime_prepare.begin.sources.directories[0]: must be a non-empty directory of at most 4096 bytes without NUL, CR or LF"},
		{rule: "runtime_prepare begin: finalize source directories are unique, canonical, non-empty and at most 4096 bytes", frame: finalize(`{"directories":["/opt\na"]}`), want: "runtime_prepare.begin.sources.directories[0]: must be a non-empty directory of at most 4096 bytes without NUL, CR or LF"},

		{rule: "runtime_prepare chunk: data is 1 byte to 64 KiB", frame: prep(`"step":"chunk","offset":0,"data":"QQ=="`)},
		{rule: "runtime_prepare chunk: data is 1 byte to 64 KiB", frame: prep(`"step":"chunk","offset":65536,"data":` + b64(65536))},
		{rule: "runtime_prepare chunk: data is 1 byte to 64 KiB", frame: prep(`"step":"chunk","offset":0`), want: "runtime_prepare.chunk.data: must carry 1 to 65536 bytes"},
		{rule: "runtime_prepare chunk: data is 1 byte to 64 KiB", frame: prep(`"step":"chunk","offset":0,"data":""`), want: "runtime_prepare.chunk.data: must carry 1 to 65536 bytes"},
		{rule: "runtime_prepare chunk: data is 1 byte to 64 KiB", frame: prep(`"step":"chunk","offset":0,"data":` + b64(65537)), want: "runtime_prepare.chunk.data: must carry 1 to 65536 bytes"},
		{rule: "runtime_prepare chunk: data is standard base64", frame: prep(`"step":"chunk","offset":0,"data":"+/+/"`)},
		{rule: "runtime_prepare chunk: data is standard base64", frame: prep(`"step":"chunk","offset":0,"data":"-_-_"`), want: "runtime_prepare.data: must be a base64 string"},
		{rule: "runtime_prepare chunk: data is standard base64", frame: prep(`"step":"chunk","offset":0,"data":"QQ"`), want: "runtime_prepare.data: must be a base64 string"},
		{rule: "runtime_prepare chunk: data is standard base64", frame: prep(`"step":"chunk","offset":0,"data":"Q=Q="`), want: "runtime_prepare.data: must be a base64 string"},
		{rule: "runtime_prepare chunk: data is standard base64", frame: prep(`"step":"chunk","offset":0,"data":[65]`), want: "runtime_prepare.data: must be a base64 string"},
		{rule: "runtime_prepare chunk: offset is 0 to 50 MiB and data does not extend past 50 MiB", frame: prep(fmt.Sprintf(`"step":"chunk","offset":%d,"data":"QQ=="`, mib50-1))},
		{rule: "runtime_prepare chunk: offset is 0 to 50 MiB and data does not extend past 50 MiB", frame: prep(fmt.Sprintf(`"step":"chunk","offset":%d,"data":"QQ=="`, mib50)), want: "runtime_prepare.chunk.data: must not extend past 52428800 bytes"},
		{rule: "runtime_prepare chunk: offset is 0 to 50 MiB and data does not extend past 50 MiB", frame: prep(fmt.Sprintf(`"step":"chunk","offset":%d,"data":%s`, mib50-65535, b64(65536))), want: "runtime_prepare.chunk.data: must not extend past 52428800 bytes"},
		{rule: "runtime_prepare chunk: offset is 0 to 50 MiB and data does not extend past 50 MiB", frame: prep(fmt.Sprintf(`"step":"chunk","offset":%d,"data":"QQ=="`, mib50+1)), want: "runtime_prepare.chunk.offset: must be between 0 and 52428800"},
		{rule: "runtime_prepare chunk: offset is 0 to 50 MiB and data does not extend past 50 MiB", frame: prep(`"step":"chunk","offset":-1,"data":"QQ=="`), want: "runtime_prepare.chunk.offset: must be between 0 and 52428800"},

		{rule: "runtime_prepare commit: offset 0 and no data", frame: prep(`"step":"commit","offset":0`)},
		{rule: "runtime_prepare commit: offset 0 and no data", frame: prep(`"step":"commit","offset":5`), want: "runtime_prepare.commit: must carry offset 0 and no data"},
		{rule: "runtime_prepare commit: offset 0 and no data", frame: prep(`"step":"commit","data":"QQ=="`), want: "runtime_prepare.commit: must carry offset 0 and no data"},

		{rule: "runtime_prepare: the payload is at most 1 MiB", frame: prep(begin + `"action":"skill","skill":{"type":"inline","name":"n","description":"` + strings.Repeat("d", 1<<20-400) + `"},"size_bytes":5,"sha256":"$SHA"`)},
		{rule: "runtime_prepare: the payload is at most 1 MiB", frame: prep(begin + `"action":"skill","skill":{"type":"inline","name":"n","description":"` + strings.Repeat("d", 1<<20) + `"},"size_bytes":5,"sha256":"$SHA"`), want: "runtime_prepare.payload: must be at most 1048576 bytes"},
	}
	// Chunk and commit carry none of the begin members.
	for _, m := range []struct{ name, value string }{
		{"environment_id", `"$ENV"`}, {"session_id", `"$SES"`}, {"action", `"file"`}, {"slot", `1`},
		{"skill", `{"type":"inline","name":"n","description":"d"}`}, {"plugin", `{"type":"inline","name":"n","description":"d"}`},
		{"sources", `{}`}, {"file", `{"path":"/workspace/a"}`}, {"initialization", `{"action":"configure"}`},
		{"size_bytes", `5`}, {"sha256", `"$SHA"`},
	} {
		rule := "runtime_prepare chunk and commit: carry none of the begin members"
		cases = append(cases,
			c{rule: rule, frame: prep(`"step":"chunk","offset":0,"data":"QQ==","` + m.name + `":` + m.value), want: "runtime_prepare.chunk." + m.name + ": is a begin member and must be absent on chunk"},
			c{rule: rule, frame: prep(`"step":"commit","` + m.name + `":` + m.value), want: "runtime_prepare.commit." + m.name + ": is a begin member and must be absent on commit"},
		)
	}
	cases = append(cases,
		c{rule: "runtime_prepare chunk and commit: carry none of the begin members", frame: prep(`"step":"chunk","offset":10,"data":"QUJD"`)},
		c{rule: "runtime_prepare chunk and commit: carry none of the begin members", frame: prep(`"step":"commit"`)},
	)
	return cases
}

func prepareResultCases() []frameCase {
	type c = frameCase
	res := func(members string) string { return frame("runtime_prepare_result", "$TID", "{"+members+"}") }
	cases := []frameCase{
		{rule: "runtime_prepare_result: outcome is ready, received, completed, rejected, failed or unknown", frame: res(`"outcome":"ready"`)},
		{rule: "runtime_prepare_result: outcome is ready, received, completed, rejected, failed or unknown", frame: res(`"outcome":"accepted"`), want: "runtime_prepare_result.outcome: must be ready, received, completed, rejected, failed or unknown"},
		{rule: "runtime_prepare_result: outcome is ready, received, completed, rejected, failed or unknown", frame: res(`"offset":0`), want: "runtime_prepare_result.outcome: is required"},
		{rule: "runtime_prepare_result: ready, received and completed carry no error_code", frame: res(`"outcome":"completed","size_bytes":5`)},
		{rule: "runtime_prepare_result: ready, received and completed carry no error_code", frame: res(`"outcome":"ready","error_code":"invalid_request"`), want: "runtime_prepare_result.error_code: must be empty on ready"},
		{rule: "runtime_prepare_result: ready, received and completed carry no error_code", frame: res(`"outcome":"received","offset":1,"error_code":"invalid_request"`), want: "runtime_prepare_result.error_code: must be empty on received"},
		{rule: "runtime_prepare_result: ready, received and completed carry no error_code", frame: res(`"outcome":"completed","error_code":"runtime_preparation_failed"`), want: "runtime_prepare_result.error_code: must be empty on completed"},
		{rule: "runtime_prepare_result: received carries the cumulative offset (1 to 50 MiB)", frame: res(`"outcome":"received","offset":65536`)},
		{rule: "runtime_prepare_result: received carries the cumulative offset (1 to 50 MiB)", frame: res(`"outcome":"received","offset":52428800`)},
		{rule: "runtime_prepare_result: received carries the cumulative offset (1 to 50 MiB)", frame: res(`"outcome":"received"`), want: "runtime_prepare_result.offset: must be the cumulative bytes received (1 to 52428800)"},
		{rule: "runtime_prepare_result: received carries the cumulative offset (1 to 50 MiB)", frame: res(`"outcome":"received","offset":52428801`), want: "runtime_prepare_result.offset: must be the cumulative bytes received (1 to 52428800)"},
		{rule: "runtime_prepare_result: received carries the cumulative offset (1 to 50 MiB)", frame: res(`"outcome":"received","offset":-5`), want: "runtime_prepare_result.offset: must be the cumulative bytes received (1 to 52428800)"},
		{rule: "runtime_prepare_result: offset is set only on received", frame: res(`"outcome":"ready","offset":0`)},
		{rule: "runtime_prepare_result: offset is set only on received", frame: res(`"outcome":"ready","offset":5`), want: "runtime_prepare_result.offset: is only set on received"},
		{rule: "runtime_prepare_result: offset is set only on received", frame: res(`"outcome":"completed","offset":5,"size_bytes":5`), want: "runtime_prepare_result.offset: is only set on received"},
		{rule: "runtime_prepare_result: completed carries the total size (0 to 50 MiB; 0 for initialize and finalize)", frame: res(`"outcome":"completed"`)},
		{rule: "runtime_prepare_result: completed carries the total size (0 to 50 MiB; 0 for initialize and finalize)", frame: res(`"outcome":"completed","size_bytes":52428800`)},
		{rule: "runtime_prepare_result: completed carries the total size (0 to 50 MiB; 0 for initialize and finalize)", frame: res(`"outcome":"completed","size_bytes":52428801`), want: "runtime_prepare_result.size_bytes: must be between 0 and 52428800 bytes"},
		{rule: "runtime_prepare_result: completed carries the total size (0 to 50 MiB; 0 for initialize and finalize)", frame: res(`"outcome":"completed","size_bytes":-1`), want: "runtime_prepare_result.size_bytes: must be between 0 and 52428800 bytes"},
		{rule: "runtime_prepare_result: size_bytes is set only on completed", frame: res(`"outcome":"received","offset":5,"size_bytes":0`)},
		{rule: "runtime_prepare_result: size_bytes is set only on completed", frame: res(`"outcome":"received","offset":5,"size_bytes":5`), want: "runtime_prepare_result.size_bytes: is only set on completed"},
		{rule: "runtime_prepare_result: size_bytes is set only on completed", frame: res(`"outcome":"ready","size_bytes":5`), want: "runtime_prepare_result.size_bytes: is only set on completed"},
		{rule: "runtime_prepare_result: terminal rejections and failures carry offset 0 and size_bytes 0", frame: res(`"outcome":"unknown","error_code":"runtime_preparation_unconfirmed"`)},
		{rule: "runtime_prepare_result: terminal rejections and failures carry offset 0 and size_bytes 0", frame: res(`"outcome":"rejected","error_code":"invalid_request","offset":3`), want: "runtime_prepare_result.rejected: must carry offset 0 and size_bytes 0"},
		{rule: "runtime_prepare_result: terminal rejections and failures carry offset 0 and size_bytes 0", frame: res(`"outcome":"failed","error_code":"runtime_preparation_failed","size_bytes":5`), want: "runtime_prepare_result.failed: must carry offset 0 and size_bytes 0"},
		{rule: "runtime_prepare_result: terminal rejections and failures carry offset 0 and size_bytes 0", frame: res(`"outcome":"unknown","error_code":"runtime_preparation_unconfirmed","offset":1`), want: "runtime_prepare_result.unknown: must carry offset 0 and size_bytes 0"},
		{rule: "runtime_prepare_result: exit_code is 0–255 and only with failed", frame: res(`"outcome":"failed","error_code":"runtime_preparation_failed","exit_code":42`)},
		{rule: "runtime_prepare_result: exit_code is 0–255 and only with failed", frame: res(`"outcome":"failed","error_code":"runtime_preparation_failed","exit_code":255`)},
		{rule: "runtime_prepare_result: exit_code is 0–255 and only with failed", frame: res(`"outcome":"failed","error_code":"runtime_preparation_failed","exit_code":256`), want: "runtime_prepare_result.exit_code: must be between 0 and 255"},
		{rule: "runtime_prepare_result: exit_code is 0–255 and only with failed", frame: res(`"outcome":"failed","error_code":"runtime_preparation_failed","exit_code":-1`), want: "runtime_prepare_result.exit_code: must be between 0 and 255"},
		{rule: "runtime_prepare_result: exit_code is 0–255 and only with failed", frame: res(`"outcome":"completed","exit_code":1`), want: "runtime_prepare_result.exit_code: is only allowed with failed"},
		{rule: "runtime_prepare_result: exit_code is 0–255 and only with failed", frame: res(`"outcome":"unknown","error_code":"runtime_preparation_unconfirmed","exit_code":1`), want: "runtime_prepare_result.exit_code: is only allowed with failed"},
	}
	for _, code := range []string{"invalid_request", "resource_unavailable", "runtime_preparation_capacity", "runtime_preparation_unsupported", "runtime_preparation_rejected"} {
		cases = append(cases, c{rule: "runtime_prepare_result: rejected carries a listed rejection code", frame: res(`"outcome":"rejected","error_code":"` + code + `"`)})
	}
	cases = append(cases,
		c{rule: "runtime_prepare_result: rejected carries a listed rejection code", frame: res(`"outcome":"rejected","error_code":"runtime_preparation_failed"`), want: "runtime_prepare_result.error_code: must be a listed code for outcome rejected"},
		c{rule: "runtime_prepare_result: rejected carries a listed rejection code", frame: res(`"outcome":"rejected"`), want: "runtime_prepare_result.error_code: must be a listed code for outcome rejected"},
		c{rule: "runtime_prepare_result: rejected carries a listed rejection code", frame: res(`"outcome":"rejected","error_code":"write_capacity"`), want: "runtime_prepare_result.error_code: must be a listed code for outcome rejected"},
		c{rule: "runtime_prepare_result: failed carries runtime_preparation_failed", frame: res(`"outcome":"failed","error_code":"runtime_preparation_failed"`)},
		c{rule: "runtime_prepare_result: failed carries runtime_preparation_failed", frame: res(`"outcome":"failed","error_code":"invalid_request"`), want: "runtime_prepare_result.error_code: must be a listed code for outcome failed"},
		c{rule: "runtime_prepare_result: unknown carries runtime_preparation_unconfirmed", frame: res(`"outcome":"unknown","error_code":"runtime_preparation_unconfirmed"`)},
		c{rule: "runtime_prepare_result: unknown carries runtime_preparation_unconfirmed", frame: res(`"outcome":"unknown","error_code":"runtime_preparation_failed"`), want: "runtime_prepare_result.error_code: must be a listed code for outcome unknown"},
		c{rule: "runtime_prepare_result: unknown carries runtime_preparation_unconfirmed", frame: res(`"outcome":"unknown"`), want: "runtime_prepare_result.error_code: must be a listed code for outcome unknown"},
	)
	return cases
}

func writeCases() []frameCase {
	type c = frameCase
	w := func(members string) string { return frame("workspace_write", "$TID", "{"+members+"}") }
	path := func(p string) string {
		return w(begin + `"path":` + jstr(p) + `,"size_bytes":5,"sha256":"$SHA"`)
	}
	const mib50 = 50 << 20
	const pathRule = "workspace_write begin: path is a clean workspace-relative path (not .) of at most 4096 bytes without \\, NUL, CR or LF"
	cases := []frameCase{
		{rule: "workspace_write: step is begin, chunk or commit", frame: path("docs/readme.md")},
		{rule: "workspace_write: step is begin, chunk or commit", frame: w(`"step":"chunk","offset":0,"data":"aGVsbG8="`)},
		{rule: "workspace_write: step is begin, chunk or commit", frame: w(`"step":"commit"`)},
		{rule: "workspace_write: step is begin, chunk or commit", frame: w(`"step":"next"`), want: "workspace_write.step: must be begin, chunk or commit"},
		{rule: "workspace_write: step is begin, chunk or commit", frame: w(`"step":7`), want: "workspace_write.step: must be a JSON string"},

		{rule: "workspace_write begin: environment_id and session_id are canonical lowercase non-nil UUIDs", frame: path("a")},
		{rule: "workspace_write begin: environment_id and session_id are canonical lowercase non-nil UUIDs", frame: w(`"step":"begin","environment_id":"env-1","session_id":"$SES","path":"a","size_bytes":5,"sha256":"$SHA"`), want: "workspace_write.begin.environment_id: must be a canonical lowercase non-nil UUID"},
		{rule: "workspace_write begin: environment_id and session_id are canonical lowercase non-nil UUIDs", frame: w(`"step":"begin","environment_id":"$ENV","session_id":"` + strings.ToUpper(sesUUID) + `","path":"a","size_bytes":5,"sha256":"$SHA"`), want: "workspace_write.begin.session_id: must be a canonical lowercase non-nil UUID"},
		{rule: "workspace_write begin: environment_id and session_id are canonical lowercase non-nil UUIDs", frame: w(`"step":"begin","environment_id":"$ENV","path":"a","size_bytes":5,"sha256":"$SHA"`), want: "workspace_write.begin.session_id: must be a canonical lowercase non-nil UUID"},

		{rule: pathRule, frame: path("docs/a b/ü.md")},
		{rule: pathRule, frame: path("..hidden/x")},
		{rule: pathRule, frame: path(strings.Repeat("p", 4096))},
		{rule: pathRule, frame: path(strings.Repeat("p", 4097)), want: "workspace_write.begin.path: must be at most 4096 bytes"},
		{rule: pathRule, frame: path(""), want: "workspace_write.begin.path: must not be empty"},
		{rule: pathRule, frame: path("."), want: `workspace_write.begin.path: must not be "."`},
		{rule: pathRule, frame: path("/etc/passwd"), want: "workspace_write.begin.path: must be relative to the workspace"},
		{rule: pathRule, frame: path("a/../b"), want: "workspace_write.begin.path: must be a clean relative path"},
		{rule: pathRule, frame: path("./a"), want: "workspace_write.begin.path: must be a clean relative path"},
		{rule: pathRule, frame: path("a/"), want: "workspace_write.begin.path: must be a clean relative path"},
		{rule: pathRule, frame: path("a//b"), want: "workspace_write.begin.path: must be a clean relative path"},
		{rule: pathRule, frame: path(".."), want: "workspace_write.begin.path: must stay inside the workspace"},
		{rule: pathRule, frame: path("../a"), want: "workspace_write.begin.path: must stay inside the workspace"},
		{rule: pathRule, frame: path(`a\b`), want: "workspace_write.begin.path: must not contain a backslash, NUL, CR or LF"},
		{rule: pathRule, frame: path("a\x00"), want: "workspace_write.begin.path: must not contain a backslash, NUL, CR or LF"},
		{rule: pathRule, frame: path("a\r"), want: "workspace_write.begin.path: must not contain a backslash, NUL, CR or LF"},
		{rule: pathRule, frame: path("a\nb"), want: "workspace_write.begin.path: must not contain a backslash, NUL, CR or LF"},

		{rule: "workspace_write begin: size_bytes is 0 to 50 MiB", frame: w(begin + `"path":"empty","size_bytes":0,"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"`)},
		{rule: "workspace_write begin: size_bytes is 0 to 50 MiB", frame: w(begin + `"path":"big","size_bytes":52428800,"sha256":"$SHA"`)},
		{rule: "workspace_write begin: size_bytes is 0 to 50 MiB", frame: w(begin + `"path":"big","size_bytes":52428801,"sha256":"$SHA"`), want: "workspace_write.begin.size_bytes: must be between 0 and 52428800 bytes"},
		{rule: "workspace_write begin: size_bytes is 0 to 50 MiB", frame: w(begin + `"path":"big","size_bytes":-1,"sha256":"$SHA"`), want: "workspace_write.begin.size_bytes: must be between 0 and 52428800 bytes"},
		{rule: "workspace_write begin: sha256 is 64 lowercase hex of the complete body", frame: path("a")},
		{rule: "workspace_write begin: sha256 is 64 lowercase hex of the complete body", frame: w(begin + `"path":"a","size_bytes":5`), want: "workspace_write.begin.sha256: must be 64 lowercase hex characters"},
		{rule: "workspace_write begin: sha256 is 64 lowercase hex of the complete body", frame: w(begin + `"path":"a","size_bytes":5,"sha256":"` + strings.ToUpper(helloSHA) + `"`), want: "workspace_write.begin.sha256: must be 64 lowercase hex characters"},
		{rule: "workspace_write begin: offset 0 and no data", frame: w(begin + `"path":"a","size_bytes":5,"sha256":"$SHA","offset":0`)},
		{rule: "workspace_write begin: offset 0 and no data", frame: w(begin + `"path":"a","size_bytes":5,"sha256":"$SHA","offset":1`), want: "workspace_write.begin: must carry offset 0 and no data"},
		{rule: "workspace_write begin: offset 0 and no data", frame: w(begin + `"path":"a","size_bytes":5,"sha256":"$SHA","data":"aGVsbG8="`), want: "workspace_write.begin: must carry offset 0 and no data"},

		{rule: "workspace_write chunk: data is 1 byte to 64 KiB", frame: w(`"step":"chunk","offset":0,"data":` + b64(65536))},
		{rule: "workspace_write chunk: data is 1 byte to 64 KiB", frame: w(`"step":"chunk","offset":0,"data":` + b64(65537)), want: "workspace_write.chunk.data: must carry 1 to 65536 bytes"},
		{rule: "workspace_write chunk: data is 1 byte to 64 KiB", frame: w(`"step":"chunk","offset":0`), want: "workspace_write.chunk.data: must carry 1 to 65536 bytes"},
		{rule: "workspace_write chunk: offset is 0 to 50 MiB and data does not extend past 50 MiB", frame: w(fmt.Sprintf(`"step":"chunk","offset":%d,"data":"QQ=="`, mib50-1))},
		{rule: "workspace_write chunk: offset is 0 to 50 MiB and data does not extend past 50 MiB", frame: w(fmt.Sprintf(`"step":"chunk","offset":%d,"data":"QUI="`, mib50-1)), want: "workspace_write.chunk.data: must not extend past 52428800 bytes"},
		{rule: "workspace_write chunk: offset is 0 to 50 MiB and data does not extend past 50 MiB", frame: w(fmt.Sprintf(`"step":"chunk","offset":%d,"data":"QQ=="`, mib50+1)), want: "workspace_write.chunk.offset: must be between 0 and 52428800"},
		{rule: "workspace_write chunk: offset is 0 to 50 MiB and data does not extend past 50 MiB", frame: w(`"step":"chunk","offset":-1,"data":"QQ=="`), want: "workspace_write.chunk.offset: must be between 0 and 52428800"},
		{rule: "workspace_write commit: offset 0 and no data", frame: w(`"step":"commit"`)},
		{rule: "workspace_write commit: offset 0 and no data", frame: w(`"step":"commit","offset":3`), want: "workspace_write.commit: must carry offset 0 and no data"},
		{rule: "workspace_write commit: offset 0 and no data", frame: w(`"step":"commit","data":"QQ=="`), want: "workspace_write.commit: must carry offset 0 and no data"},

		{rule: "workspace_write: the payload is at most 96 KiB", frame: w(`"step":"chunk","offset":0,"data":` + b64(65536))},
		{rule: "workspace_write: the payload is at most 96 KiB", frame: w(`"step":"chunk","offset":0,"data":` + b64(72<<10)), want: "workspace_write.payload: must be at most 98304 bytes"},
	}
	for _, m := range []struct{ name, value string }{
		{"environment_id", `"$ENV"`}, {"session_id", `"$SES"`}, {"path", `"a"`}, {"size_bytes", `5`}, {"sha256", `"$SHA"`},
	} {
		rule := "workspace_write chunk and commit: carry none of the begin members"
		cases = append(cases,
			c{rule: rule, frame: w(`"step":"chunk","offset":0,"data":"QQ==","` + m.name + `":` + m.value), want: "workspace_write.chunk." + m.name + ": is a begin member and must be absent on chunk"},
			c{rule: rule, frame: w(`"step":"commit","` + m.name + `":` + m.value), want: "workspace_write.commit." + m.name + ": is a begin member and must be absent on commit"},
		)
	}
	cases = append(cases, c{rule: "workspace_write chunk and commit: carry none of the begin members", frame: w(`"step":"chunk","offset":5,"data":"QQ=="`)})
	return cases
}

func writeResultCases() []frameCase {
	type c = frameCase
	res := func(members string) string { return frame("workspace_write_result", "$TID", "{"+members+"}") }
	cases := []frameCase{
		{rule: "workspace_write_result: outcome is ready, received, completed, rejected or unknown", frame: res(`"outcome":"ready"`)},
		{rule: "workspace_write_result: outcome is ready, received, completed, rejected or unknown", frame: res(`"outcome":"failed","error_code":"write_rejected"`), want: "workspace_write_result.outcome: must be ready, received, completed, rejected or unknown"},
		{rule: "workspace_write_result: ready, received and completed carry no error_code", frame: res(`"outcome":"completed","size_bytes":5`)},
		{rule: "workspace_write_result: ready, received and completed carry no error_code", frame: res(`"outcome":"completed","size_bytes":5,"error_code":"write_rejected"`), want: "workspace_write_result.error_code: must be empty on completed"},
		{rule: "workspace_write_result: received carries the cumulative offset; offset only on received", frame: res(`"outcome":"received","offset":65536`)},
		{rule: "workspace_write_result: received carries the cumulative offset; offset only on received", frame: res(`"outcome":"received"`), want: "workspace_write_result.offset: must be the cumulative bytes received (1 to 52428800)"},
		{rule: "workspace_write_result: received carries the cumulative offset; offset only on received", frame: res(`"outcome":"received","offset":52428801`), want: "workspace_write_result.offset: must be the cumulative bytes received (1 to 52428800)"},
		{rule: "workspace_write_result: received carries the cumulative offset; offset only on received", frame: res(`"outcome":"ready","offset":1`), want: "workspace_write_result.offset: is only set on received"},
		{rule: "workspace_write_result: received carries the cumulative offset; offset only on received", frame: res(`"outcome":"rejected","error_code":"invalid_request","offset":1`), want: "workspace_write_result.offset: is only set on received"},
		{rule: "workspace_write_result: completed carries the total size; size_bytes only on completed", frame: res(`"outcome":"completed"`)},
		{rule: "workspace_write_result: completed carries the total size; size_bytes only on completed", frame: res(`"outcome":"completed","size_bytes":52428801`), want: "workspace_write_result.size_bytes: must be between 0 and 52428800 bytes"},
		{rule: "workspace_write_result: completed carries the total size; size_bytes only on completed", frame: res(`"outcome":"received","offset":5,"size_bytes":5`), want: "workspace_write_result.size_bytes: is only set on completed"},
		{rule: "workspace_write_result: completed carries the total size; size_bytes only on completed", frame: res(`"outcome":"unknown","error_code":"write_unconfirmed","size_bytes":5`), want: "workspace_write_result.size_bytes: is only set on completed"},
		{rule: "workspace_write_result: unknown carries write_unconfirmed", frame: res(`"outcome":"unknown","error_code":"write_unconfirmed"`)},
		{rule: "workspace_write_result: unknown carries write_unconfirmed", frame: res(`"outcome":"unknown","error_code":"write_rejected"`), want: "workspace_write_result.error_code: must be a listed code for outcome unknown"},
		{rule: "workspace_write_result: unknown carries write_unconfirmed", frame: res(`"outcome":"unknown"`), want: "workspace_write_result.error_code: must be a listed code for outcome unknown"},
		{rule: "workspace_write_result: reason only with rejected/write_rejected; unknown reasons tolerated", frame: res(`"outcome":"rejected","error_code":"write_rejected","reason":"destination_directory"`)},
		{rule: "workspace_write_result: reason only with rejected/write_rejected; unknown reasons tolerated", frame: res(`"outcome":"rejected","error_code":"write_rejected","reason":"unsafe_destination"`)},
		{rule: "workspace_write_result: reason only with rejected/write_rejected; unknown reasons tolerated", frame: res(`"outcome":"rejected","error_code":"write_rejected","reason":"quota_exceeded"`)},
		{rule: "workspace_write_result: reason only with rejected/write_rejected; unknown reasons tolerated", frame: res(`"outcome":"rejected","error_code":"write_rejected"`)},
		{rule: "workspace_write_result: reason only with rejected/write_rejected; unknown reasons tolerated", frame: res(`"outcome":"rejected","error_code":"invalid_request","reason":"destination_directory"`), want: "workspace_write_result.reason: is only set with rejected/write_rejected"},
		{rule: "workspace_write_result: reason only with rejected/write_rejected; unknown reasons tolerated", frame: res(`"outcome":"completed","reason":"destination_directory"`), want: "workspace_write_result.reason: is only set with rejected/write_rejected"},
		{rule: "workspace_write_result: reason only with rejected/write_rejected; unknown reasons tolerated", frame: res(`"outcome":"unknown","error_code":"write_unconfirmed","reason":"unsafe_destination"`), want: "workspace_write_result.reason: is only set with rejected/write_rejected"},
	}
	for _, code := range []string{"invalid_request", "resource_unavailable", "write_capacity", "write_unsupported", "write_rejected"} {
		cases = append(cases, c{rule: "workspace_write_result: rejected carries a listed rejection code", frame: res(`"outcome":"rejected","error_code":"` + code + `"`)})
	}
	cases = append(cases,
		c{rule: "workspace_write_result: rejected carries a listed rejection code", frame: res(`"outcome":"rejected","error_code":"write_unconfirmed"`), want: "workspace_write_result.error_code: must be a listed code for outcome rejected"},
		c{rule: "workspace_write_result: rejected carries a listed rejection code", frame: res(`"outcome":"rejected","error_code":"runtime_preparation_capacity"`), want: "workspace_write_result.error_code: must be a listed code for outcome rejected"},
	)
	return cases
}
