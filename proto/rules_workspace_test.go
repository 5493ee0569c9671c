package proto_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// Workspace reads, exports and suspension fencing (facts §4.13, §4.15, §4.16).

func TestRulesWorkspaceRead(t *testing.T)         { runCases(t, readCases()) }
func TestRulesWorkspaceReadResult(t *testing.T)   { runCases(t, readResultCases()) }
func TestRulesWorkspaceExport(t *testing.T)       { runCases(t, exportCases()) }
func TestRulesEnvironmentSuspension(t *testing.T) { runCases(t, suspensionCases()) }

func readFrame(members string) string { return frame("workspace_read", "read-1", "{"+members+"}") }

func readCases() []frameCase {
	byteRead := func(path string) string {
		return readFrame(`"handle":"handle-1","environment_id":"env-1","path":` + jstr(path) + `,"max_bytes":4096`)
	}
	dirRead := func(path string) string {
		return readFrame(`"run_id":"run-1","environment_id":"env-1","path":` + jstr(path) + `,"max_bytes":0,"operation":"directory","max_entries":100`)
	}
	const pathRule = "workspace_read: path is a clean workspace-relative path of at most 4096 bytes without \\, NUL, CR or LF; \"\" is the root of a directory read"
	return []frameCase{
		{rule: "workspace_read: exactly one of handle and run_id", frame: byteRead("a.txt")},
		{rule: "workspace_read: exactly one of handle and run_id", frame: dirRead("src")},
		{rule: "workspace_read: exactly one of handle and run_id", frame: readFrame(`"handle":"h","run_id":"r","environment_id":"env-1","path":"a","max_bytes":1`), want: "workspace_read.handle: exactly one of handle and run_id is required"},
		{rule: "workspace_read: exactly one of handle and run_id", frame: readFrame(`"environment_id":"env-1","path":"a","max_bytes":1`), want: "workspace_read.handle: exactly one of handle and run_id is required"},
		{rule: "workspace_read: exactly one of handle and run_id", frame: readFrame(`"handle":"","run_id":"","environment_id":"env-1","path":"a","max_bytes":1`), want: "workspace_read.handle: exactly one of handle and run_id is required"},
		{rule: "workspace_read: environment_id is required and not blank", frame: byteRead("a")},
		{rule: "workspace_read: environment_id is required and not blank", frame: readFrame(`"handle":"h","path":"a","max_bytes":1`), want: "workspace_read.environment_id: is required"},
		{rule: "workspace_read: environment_id is required and not blank", frame: readFrame(`"handle":"h","environment_id":" ","path":"a","max_bytes":1`), want: "workspace_read.environment_id: must not be blank"},
		{rule: "workspace_read: path and max_bytes are always encoded", frame: readFrame(`"handle":"h","environment_id":"e","path":"","max_bytes":0,"operation":"directory","max_entries":1`)},
		{rule: "workspace_read: path and max_bytes are always encoded", frame: readFrame(`"handle":"h","environment_id":"e","max_bytes":0,"operation":"directory","max_entries":1`), want: "workspace_read.path: is required"},
		{rule: "workspace_read: path and max_bytes are always encoded", frame: readFrame(`"handle":"h","environment_id":"e","path":"","operation":"directory","max_entries":1`), want: "workspace_read.max_bytes: is required"},
		{rule: "workspace_read: operation is empty (bytes) or directory", frame: readFrame(`"handle":"h","environment_id":"e","path":"a","max_bytes":1,"operation":""`)},
		{rule: "workspace_read: operation is empty (bytes) or directory", frame: readFrame(`"handle":"h","environment_id":"e","path":"a","max_bytes":1,"operation":"bytes"`), want: "workspace_read.operation: must be empty (bytes) or directory"},
		{rule: "workspace_read: operation is empty (bytes) or directory", frame: readFrame(`"handle":"h","environment_id":"e","path":"a","max_bytes":0,"operation":"tree","max_entries":5`), want: "workspace_read.operation: must be empty (bytes) or directory"},
		{rule: "workspace_read: a byte read has max_bytes 1 to 1 MiB and no max_entries", frame: readFrame(`"handle":"h","environment_id":"e","path":"a","max_bytes":1`)},
		{rule: "workspace_read: a byte read has max_bytes 1 to 1 MiB and no max_entries", frame: readFrame(`"handle":"h","environment_id":"e","path":"a","max_bytes":1048576,"max_entries":0`)},
		{rule: "workspace_read: a byte read has max_bytes 1 to 1 MiB and no max_entries", frame: readFrame(`"handle":"h","environment_id":"e","path":"a","max_bytes":0`), want: "workspace_read.max_bytes: must be between 1 and 1048576 for a byte read"},
		{rule: "workspace_read: a byte read has max_bytes 1 to 1 MiB and no max_entries", frame: readFrame(`"handle":"h","environment_id":"e","path":"a","max_bytes":1048577`), want: "workspace_read.max_bytes: must be between 1 and 1048576 for a byte read"},
		{rule: "workspace_read: a byte read has max_bytes 1 to 1 MiB and no max_entries", frame: readFrame(`"handle":"h","environment_id":"e","path":"a","max_bytes":-1`), want: "workspace_read.max_bytes: must be between 1 and 1048576 for a byte read"},
		{rule: "workspace_read: a byte read has max_bytes 1 to 1 MiB and no max_entries", frame: readFrame(`"handle":"h","environment_id":"e","path":"a","max_bytes":10,"max_entries":10`), want: "workspace_read.max_entries: must be 0 for a byte read (byte and entry limits are exclusive)"},
		{rule: "workspace_read: a directory read has max_entries 1 to 1024 and max_bytes 0", frame: readFrame(`"handle":"h","environment_id":"e","path":"","max_bytes":0,"operation":"directory","max_entries":1024`)},
		{rule: "workspace_read: a directory read has max_entries 1 to 1024 and max_bytes 0", frame: readFrame(`"handle":"h","environment_id":"e","path":"","max_bytes":0,"operation":"directory","max_entries":1025`), want: "workspace_read.max_entries: must be between 1 and 1024 for a directory read"},
		{rule: "workspace_read: a directory read has max_entries 1 to 1024 and max_bytes 0", frame: readFrame(`"handle":"h","environment_id":"e","path":"","max_bytes":0,"operation":"directory"`), want: "workspace_read.max_entries: must be between 1 and 1024 for a directory read"},
		{rule: "workspace_read: a directory read has max_entries 1 to 1024 and max_bytes 0", frame: readFrame(`"handle":"h","environment_id":"e","path":"","max_bytes":4096,"operation":"directory","max_entries":10`), want: "workspace_read.max_bytes: must be 0 for a directory read (byte and entry limits are exclusive)"},
		{rule: pathRule, frame: dirRead("")},
		{rule: pathRule, frame: dirRead("src/pkg")},
		{rule: pathRule, frame: byteRead(".github/workflows/ci.yml")},
		{rule: pathRule, frame: byteRead(strings.Repeat("p", 4096))},
		{rule: pathRule, frame: byteRead(""), want: "workspace_read.path: must not be empty"},
		{rule: pathRule, frame: byteRead(strings.Repeat("p", 4097)), want: "workspace_read.path: must be at most 4096 bytes"},
		{rule: pathRule, frame: dirRead("."), want: `workspace_read.path: must not be "."`},
		{rule: pathRule, frame: dirRead("/"), want: "workspace_read.path: must be relative to the workspace"},
		{rule: pathRule, frame: byteRead("/workspace/a"), want: "workspace_read.path: must be relative to the workspace"},
		{rule: pathRule, frame: byteRead("src/../a"), want: "workspace_read.path: must be a clean relative path"},
		{rule: pathRule, frame: dirRead("src/"), want: "workspace_read.path: must be a clean relative path"},
		{rule: pathRule, frame: dirRead(".."), want: "workspace_read.path: must stay inside the workspace"},
		{rule: pathRule, frame: byteRead("../etc/passwd"), want: "workspace_read.path: must stay inside the workspace"},
		{rule: pathRule, frame: byteRead(`src\a`), want: "workspace_read.path: must not contain a backslash, NUL, CR or LF"},
		{rule: pathRule, frame: byteRead("a\x00"), want: "workspace_read.path: must not contain a backslash, NUL, CR or LF"},
		{rule: pathRule, frame: dirRead("a\rb"), want: "workspace_read.path: must not contain a backslash, NUL, CR or LF"},
		{rule: pathRule, frame: dirRead("a\nb"), want: "workspace_read.path: must not contain a backslash, NUL, CR or LF"},
		{rule: "workspace_read: the request payload is at most 8 KiB", frame: readFrame(`"handle":"` + strings.Repeat("h", 8000) + `","environment_id":"e","path":"a","max_bytes":1`)},
		{rule: "workspace_read: the request payload is at most 8 KiB", frame: readFrame(`"handle":"` + strings.Repeat("h", 8192) + `","environment_id":"e","path":"a","max_bytes":1`), want: "workspace_read.payload: must be at most 8192 bytes"},
		{rule: "workspace_read: the request payload is at most 8 KiB", frame: frame("workspace_read", "read-1", `{"handle":"h","environment_id":"e","path":"a","max_bytes":1`+strings.Repeat(" ", 8192)+`}`), want: "workspace_read.payload: must be at most 8192 bytes"},
	}
}

// readRequest parses a workspace_read frame for CheckAgainst.
func readRequest(members string) *proto.WorkspaceReadPayload {
	f, err := proto.ParseFrame([]byte(readFrame(members)))
	if err != nil {
		panic(err)
	}
	return f.Payload.(*proto.WorkspaceReadPayload)
}

func checkAgainst(req *proto.WorkspaceReadPayload) func(*proto.Frame) error {
	return func(f *proto.Frame) error { return payloadOf[proto.WorkspaceReadResultPayload](f).CheckAgainst(req) }
}

func readResultCases() []frameCase {
	type c = frameCase
	res := func(members string) string { return frame("workspace_read_result", "read-1", "{"+members+"}") }
	dir := func(entries string, truncated bool) string {
		return res(fmt.Sprintf(`"outcome":"completed","close_acknowledged":true,"directory":{"entries":%s,"truncated":%t}`, entries, truncated))
	}
	entry := func(name string) string { return `{"name":` + jstr(name) + `,"kind":"file","size_bytes":12}` }
	files := func(n int) string { return jsonList(n, func(i int) string { return entry(fmt.Sprintf("f%04d", i)) }) }
	bytes4 := readRequest(`"handle":"h","environment_id":"e","path":"a","max_bytes":4`)
	listing2 := readRequest(`"handle":"h","environment_id":"e","path":"","max_bytes":0,"operation":"directory","max_entries":2`)
	const nameRule = "workspace_read_result: an entry name is one UTF-8 component of 1 to 255 bytes, not . or .., without /, \\, NUL, CR or LF"
	cases := []frameCase{
		{rule: "workspace_read_result: outcome is completed, rejected or unknown", frame: res(`"outcome":"completed","data":"aGk=","close_acknowledged":true`)},
		{rule: "workspace_read_result: outcome is completed, rejected or unknown", frame: res(`"outcome":"failed","error_code":"not_found"`), want: "workspace_read_result.outcome: must be completed, rejected or unknown"},
		{rule: "workspace_read_result: completed needs an acknowledged close", frame: res(`"outcome":"completed","close_acknowledged":true`)},
		{rule: "workspace_read_result: completed needs an acknowledged close", frame: res(`"outcome":"completed","data":"aGk="`), want: "workspace_read_result.close_acknowledged: must be true on completed (data only after a confirmed close)"},
		{rule: "workspace_read_result: completed needs an acknowledged close", frame: res(`"outcome":"completed","data":"aGk=","close_acknowledged":false`), want: "workspace_read_result.close_acknowledged: must be true on completed (data only after a confirmed close)"},
		{rule: "workspace_read_result: completed carries no error_code", frame: res(`"outcome":"completed","close_acknowledged":true,"truncated":true,"data":"aGk="`)},
		{rule: "workspace_read_result: completed carries no error_code", frame: res(`"outcome":"completed","close_acknowledged":true,"error_code":"not_found"`), want: "workspace_read_result.error_code: must be empty on completed"},
		{rule: "workspace_read_result: byte data is at most 1 MiB", frame: res(`"outcome":"completed","close_acknowledged":true,"data":` + b64(1<<20))},
		{rule: "workspace_read_result: byte data is at most 1 MiB", frame: res(`"outcome":"completed","close_acknowledged":true,"data":` + b64(1<<20+1)), want: "workspace_read_result.data: must be at most 1048576 bytes"},
		{rule: "workspace_read_result: a directory result carries no byte data or byte truncation", frame: dir(`[]`, false)},
		{rule: "workspace_read_result: a directory result carries no byte data or byte truncation", frame: res(`"outcome":"completed","close_acknowledged":true,"data":"aGk=","directory":{"entries":[],"truncated":false}`), want: "workspace_read_result.directory: a directory result carries no data or byte truncation"},
		{rule: "workspace_read_result: a directory result carries no byte data or byte truncation", frame: res(`"outcome":"completed","close_acknowledged":true,"truncated":true,"directory":{"entries":[],"truncated":true}`), want: "workspace_read_result.directory: a directory result carries no data or byte truncation"},
		{rule: "workspace_read_result: rejected and unknown carry no data", frame: res(`"outcome":"rejected","error_code":"permission_denied"`)},
		{rule: "workspace_read_result: rejected and unknown carry no data", frame: res(`"outcome":"rejected","error_code":"not_found","data":"aGk="`), want: "workspace_read_result.rejected: carries no data"},
		{rule: "workspace_read_result: rejected and unknown carry no data", frame: res(`"outcome":"unknown","error_code":"read_unconfirmed","directory":{"entries":[],"truncated":false}`), want: "workspace_read_result.unknown: carries no data"},
		{rule: "workspace_read_result: rejected and unknown carry no data", frame: res(`"outcome":"unknown","error_code":"read_unconfirmed","truncated":true`), want: "workspace_read_result.unknown: carries no data"},
		{rule: "workspace_read_result: unknown carries read_unconfirmed", frame: res(`"outcome":"unknown","error_code":"read_unconfirmed"`)},
		{rule: "workspace_read_result: unknown carries read_unconfirmed", frame: res(`"outcome":"unknown","error_code":"not_found"`), want: "workspace_read_result.error_code: must be a listed code for outcome unknown"},
		{rule: "workspace_read_result: rejected carries a listed rejection code", frame: res(`"outcome":"rejected","error_code":"write_capacity"`), want: "workspace_read_result.error_code: must be a listed code for outcome rejected"},
		{rule: "workspace_read_result: rejected carries a listed rejection code", frame: res(`"outcome":"rejected"`), want: "workspace_read_result.error_code: must be a listed code for outcome rejected"},

		{rule: "workspace_read_result: a directory has required non-null entries and a required truncated", frame: dir(`[{"name":"a","kind":"directory","size_bytes":null}]`, true)},
		{rule: "workspace_read_result: a directory has required non-null entries and a required truncated", frame: res(`"outcome":"completed","close_acknowledged":true,"directory":{"entries":[]}`), want: "workspace_read_result.directory.truncated: is required"},
		{rule: "workspace_read_result: a directory has required non-null entries and a required truncated", frame: res(`"outcome":"completed","close_acknowledged":true,"directory":{"truncated":false}`), want: "workspace_read_result.directory.entries: is required"},
		{rule: "workspace_read_result: a directory has required non-null entries and a required truncated", frame: res(`"outcome":"completed","close_acknowledged":true,"directory":{"entries":null,"truncated":false}`), want: "workspace_read_result.directory.entries: must not be null"},
		{rule: "workspace_read_result: a directory has required non-null entries and a required truncated", frame: res(`"outcome":"completed","close_acknowledged":true,"directory":{"entries":[],"truncated":null}`), want: "workspace_read_result.directory.truncated: must not be null"},
		{rule: "workspace_read_result: a directory has required non-null entries and a required truncated", frame: res(`"outcome":"completed","close_acknowledged":true,"directory":null`), want: "workspace_read_result.directory: must not be null"},
		{rule: "workspace_read_result: a directory has at most 1024 entries", frame: dir(files(1024), true)},
		{rule: "workspace_read_result: a directory has at most 1024 entries", frame: dir(files(1025), true), want: "workspace_read_result.directory.entries: must have at most 1024 entries"},
		{rule: nameRule, frame: dir(`[`+entry("README.md")+`,`+entry("ü ñ")+`,`+entry("..."+strings.Repeat("n", 252))+`,`+entry(".env")+`]`, false)},
		{rule: nameRule, frame: dir(`[`+entry("")+`]`, false), want: "workspace_read_result.directory.entries[0].name: must be one path component, not empty, . or .."},
		{rule: nameRule, frame: dir(`[`+entry("ok")+`,`+entry(".")+`]`, false), want: "workspace_read_result.directory.entries[1].name: must be one path component, not empty, . or .."},
		{rule: nameRule, frame: dir(`[`+entry("..")+`]`, false), want: "workspace_read_result.directory.entries[0].name: must be one path component, not empty, . or .."},
		{rule: nameRule, frame: dir(`[`+entry(strings.Repeat("n", 256))+`]`, false), want: "workspace_read_result.directory.entries[0].name: must be at most 255 bytes"},
		{rule: nameRule, frame: dir(`[`+entry("a/b")+`]`, false), want: `workspace_read_result.directory.entries[0].name: must be a single component without /, \, NUL, CR or LF`},
		{rule: nameRule, frame: dir(`[`+entry(`a\b`)+`]`, false), want: `workspace_read_result.directory.entries[0].name: must be a single component without /, \, NUL, CR or LF`},
		{rule: nameRule, frame: dir(`[`+entry("a\x00")+`]`, false), want: `workspace_read_result.directory.entries[0].name: must be a single component without /, \, NUL, CR or LF`},
		{rule: nameRule, frame: dir(`[`+entry("a\rb")+`]`, false), want: `workspace_read_result.directory.entries[0].name: must be a single component without /, \, NUL, CR or LF`},
		{rule: nameRule, frame: dir(`[`+entry("a\n")+`]`, false), want: `workspace_read_result.directory.entries[0].name: must be a single component without /, \, NUL, CR or LF`},
		{rule: "workspace_read_result: entry names are unique within a listing", frame: dir(`[`+entry("a")+`,`+entry("A")+`]`, false)},
		{rule: "workspace_read_result: entry names are unique within a listing", frame: dir(`[`+entry("a")+`,`+entry("b")+`,`+entry("a")+`]`, false), want: "workspace_read_result.directory.entries[2].name: must be unique within the listing"},
		{rule: "workspace_read_result: entry kind is file, directory, symlink or other", frame: dir(`[{"name":"a","kind":"file","size_bytes":0},{"name":"b","kind":"directory","size_bytes":null},{"name":"c","kind":"symlink","size_bytes":null},{"name":"d","kind":"other","size_bytes":null}]`, false)},
		{rule: "workspace_read_result: entry kind is file, directory, symlink or other", frame: dir(`[{"name":"a","kind":"socket","size_bytes":null}]`, false), want: "workspace_read_result.directory.entries[0].kind: must be file, directory, symlink or other"},
		{rule: "workspace_read_result: entry kind is file, directory, symlink or other", frame: dir(`[{"name":"a","size_bytes":null}]`, false), want: "workspace_read_result.directory.entries[0].kind: is required"},
		{rule: "workspace_read_result: size_bytes is always encoded: a non-negative size for a file, null otherwise", frame: dir(`[{"name":"a","kind":"file","size_bytes":9007199254740993}]`, false)},
		{rule: "workspace_read_result: size_bytes is always encoded: a non-negative size for a file, null otherwise", frame: dir(`[{"name":"a","kind":"file","size_bytes":null}]`, false), want: "workspace_read_result.directory.entries[0].size_bytes: must be a non-negative size for a file"},
		{rule: "workspace_read_result: size_bytes is always encoded: a non-negative size for a file, null otherwise", frame: dir(`[{"name":"a","kind":"file","size_bytes":-1}]`, false), want: "workspace_read_result.directory.entries[0].size_bytes: must be a non-negative size for a file"},
		{rule: "workspace_read_result: size_bytes is always encoded: a non-negative size for a file, null otherwise", frame: dir(`[{"name":"a","kind":"file"}]`, false), want: "workspace_read_result.directory.entries[0].size_bytes: is required"},
		{rule: "workspace_read_result: size_bytes is always encoded: a non-negative size for a file, null otherwise", frame: dir(`[{"name":"a","kind":"directory"}]`, false), want: "workspace_read_result.directory.entries[0].size_bytes: is required"},
		{rule: "workspace_read_result: size_bytes is always encoded: a non-negative size for a file, null otherwise", frame: dir(`[{"name":"a","kind":"directory","size_bytes":4096}]`, false), want: "workspace_read_result.directory.entries[0].size_bytes: must be null for kind directory"},
		{rule: "workspace_read_result: size_bytes is always encoded: a non-negative size for a file, null otherwise", frame: dir(`[{"name":"a","kind":"symlink","size_bytes":0}]`, false), want: "workspace_read_result.directory.entries[0].size_bytes: must be null for kind symlink"},

		// CheckAgainst: the rules that need the request.
		{rule: "workspace_read_result CheckAgainst: a byte read returns at most max_bytes", frame: res(`"outcome":"completed","close_acknowledged":true,"data":"AAAA"`), check: checkAgainst(bytes4)},
		{rule: "workspace_read_result CheckAgainst: a byte read returns at most max_bytes", frame: res(`"outcome":"completed","close_acknowledged":true`), check: checkAgainst(bytes4)},
		{rule: "workspace_read_result CheckAgainst: a byte read returns at most max_bytes", frame: res(`"outcome":"completed","close_acknowledged":true,"data":"AAAAAAA="`), check: checkAgainst(bytes4),
			want: "workspace_read_result.data: must be at most max_bytes (4)"},
		{rule: "workspace_read_result CheckAgainst: a truncated byte read returns exactly max_bytes", frame: res(`"outcome":"completed","close_acknowledged":true,"truncated":true,"data":"AAAAAAA="`), check: checkAgainst(readRequest(`"handle":"h","environment_id":"e","path":"a","max_bytes":5`))},
		{rule: "workspace_read_result CheckAgainst: a truncated byte read returns exactly max_bytes", frame: res(`"outcome":"completed","close_acknowledged":true,"truncated":true,"data":"AAAA"`), check: checkAgainst(bytes4),
			want: "workspace_read_result.truncated: a truncated read returns exactly max_bytes (4)"},
		{rule: "workspace_read_result CheckAgainst: a truncated byte read returns exactly max_bytes", frame: res(`"outcome":"completed","close_acknowledged":true,"truncated":true`), check: checkAgainst(bytes4),
			want: "workspace_read_result.truncated: a truncated read returns exactly max_bytes (4)"},
		{rule: "workspace_read_result CheckAgainst: a byte read has no directory", frame: dir(`[]`, false), check: checkAgainst(bytes4),
			want: "workspace_read_result.directory: must be absent for a byte read"},
		{rule: "workspace_read_result CheckAgainst: a byte read has no directory", frame: res(`"outcome":"rejected","error_code":"not_found"`), check: checkAgainst(bytes4)},
		{rule: "workspace_read_result CheckAgainst: a directory read returns a directory of at most max_entries", frame: dir(`[`+entry("a")+`,`+entry("b")+`]`, true), check: checkAgainst(listing2)},
		{rule: "workspace_read_result CheckAgainst: a directory read returns a directory of at most max_entries", frame: dir(`[`+entry("a")+`,`+entry("b")+`,`+entry("c")+`]`, true), check: checkAgainst(listing2),
			want: "workspace_read_result.directory.entries: must have at most max_entries (2) entries"},
		{rule: "workspace_read_result CheckAgainst: a directory read returns a directory of at most max_entries", frame: res(`"outcome":"completed","close_acknowledged":true`), check: checkAgainst(listing2),
			want: "workspace_read_result.directory: is required for a completed directory read"},
		{rule: "workspace_read_result CheckAgainst: a directory read returns a directory of at most max_entries", frame: res(`"outcome":"unknown","error_code":"read_unconfirmed"`), check: checkAgainst(listing2)},
	}
	for _, code := range []string{"invalid_request", "read_capacity", "resource_unavailable", "read_unsupported", "not_directory", "not_found", "permission_denied"} {
		cases = append(cases, c{rule: "workspace_read_result: rejected carries a listed rejection code", frame: res(`"outcome":"rejected","error_code":"` + code + `"`)})
	}
	return cases
}

func exportCases() []frameCase {
	ex := func(members string) string { return frame("workspace_export", "export-1", "{"+members+"}") }
	res := func(members string) string { return frame("workspace_export_result", "export-1", "{"+members+"}") }
	const maxExport = 528 << 20
	cases := []frameCase{
		{rule: "workspace_export: step is begin, next or cancel", frame: ex(`"step":"begin","handle":"h","environment_id":"e"`)},
		{rule: "workspace_export: step is begin, next or cancel", frame: ex(`"step":"next","offset":0`)},
		{rule: "workspace_export: step is begin, next or cancel", frame: ex(`"step":"cancel"`)},
		{rule: "workspace_export: step is begin, next or cancel", frame: ex(`"step":"chunk"`), want: "workspace_export.step: must be begin, next or cancel"},
		{rule: "workspace_export begin: handle and environment_id are 1 to 128 bytes; offset 0", frame: ex(`"step":"begin","handle":"` + strings.Repeat("h", 128) + `","environment_id":"` + strings.Repeat("e", 128) + `","offset":0`)},
		{rule: "workspace_export begin: handle and environment_id are 1 to 128 bytes; offset 0", frame: ex(`"step":"begin","environment_id":"e"`), want: "workspace_export.begin.handle: must be 1 to 128 bytes"},
		{rule: "workspace_export begin: handle and environment_id are 1 to 128 bytes; offset 0", frame: ex(`"step":"begin","handle":"` + strings.Repeat("h", 129) + `","environment_id":"e"`), want: "workspace_export.begin.handle: must be 1 to 128 bytes"},
		{rule: "workspace_export begin: handle and environment_id are 1 to 128 bytes; offset 0", frame: ex(`"step":"begin","handle":"h","environment_id":""`), want: "workspace_export.begin.environment_id: must be 1 to 128 bytes"},
		{rule: "workspace_export begin: handle and environment_id are 1 to 128 bytes; offset 0", frame: ex(`"step":"begin","handle":"h","environment_id":"` + strings.Repeat("e", 129) + `"`), want: "workspace_export.begin.environment_id: must be 1 to 128 bytes"},
		{rule: "workspace_export begin: handle and environment_id are 1 to 128 bytes; offset 0", frame: ex(`"step":"begin","handle":"h","environment_id":"e","offset":1`), want: "workspace_export.begin.offset: must be 0"},
		{rule: "workspace_export next and cancel: carry no begin members", frame: ex(`"step":"next","offset":65536`)},
		{rule: "workspace_export next and cancel: carry no begin members", frame: ex(`"step":"next","offset":65536,"handle":"h"`), want: "workspace_export.next: must not carry handle or environment_id (begin members)"},
		{rule: "workspace_export next and cancel: carry no begin members", frame: ex(`"step":"cancel","environment_id":"e"`), want: "workspace_export.cancel: must not carry handle or environment_id (begin members)"},
		{rule: "workspace_export next: offset is 0 to 528 MiB", frame: ex(fmt.Sprintf(`"step":"next","offset":%d`, maxExport))},
		{rule: "workspace_export next: offset is 0 to 528 MiB", frame: ex(fmt.Sprintf(`"step":"next","offset":%d`, maxExport+1)), want: "workspace_export.next.offset: must be between 0 and 553648128"},
		{rule: "workspace_export next: offset is 0 to 528 MiB", frame: ex(`"step":"next","offset":-1`), want: "workspace_export.next.offset: must be between 0 and 553648128"},
		{rule: "workspace_export cancel: offset is 0", frame: ex(`"step":"cancel","offset":0`)},
		{rule: "workspace_export cancel: offset is 0", frame: ex(`"step":"cancel","offset":10`), want: "workspace_export.cancel.offset: must be 0"},
		{rule: "workspace_export: the request payload is at most 8 KiB", frame: ex(`"step":"cancel"` + strings.Repeat(" ", 8000))},
		{rule: "workspace_export: the request payload is at most 8 KiB", frame: ex(`"step":"cancel"` + strings.Repeat(" ", 8192)), want: "workspace_export.payload: must be at most 8192 bytes"},

		{rule: "workspace_export_result: outcome is chunk, completed, rejected or failed", frame: res(`"outcome":"completed","offset":10240`)},
		{rule: "workspace_export_result: outcome is chunk, completed, rejected or failed", frame: res(`"outcome":"done","offset":0`), want: "workspace_export_result.outcome: must be chunk, completed, rejected or failed"},
		{rule: "workspace_export_result: offset is always encoded and 0 to 528 MiB", frame: res(fmt.Sprintf(`"outcome":"completed","offset":%d`, maxExport))},
		{rule: "workspace_export_result: offset is always encoded and 0 to 528 MiB", frame: res(`"outcome":"completed"`), want: "workspace_export_result.offset: is required"},
		{rule: "workspace_export_result: offset is always encoded and 0 to 528 MiB", frame: res(fmt.Sprintf(`"outcome":"completed","offset":%d`, maxExport+1)), want: "workspace_export_result.offset: must be between 0 and 553648128"},
		{rule: "workspace_export_result: offset is always encoded and 0 to 528 MiB", frame: res(`"outcome":"chunk","offset":-1,"data":"QQ=="`), want: "workspace_export_result.offset: must be between 0 and 553648128"},
		{rule: "workspace_export_result: a chunk carries 1 byte to 64 KiB and no error_code", frame: res(`"outcome":"chunk","offset":0,"data":` + b64(65536))},
		{rule: "workspace_export_result: a chunk carries 1 byte to 64 KiB and no error_code", frame: res(`"outcome":"chunk","offset":0`), want: "workspace_export_result.data: must carry 1 to 65536 bytes on chunk"},
		{rule: "workspace_export_result: a chunk carries 1 byte to 64 KiB and no error_code", frame: res(`"outcome":"chunk","offset":0,"data":` + b64(65537)), want: "workspace_export_result.data: must carry 1 to 65536 bytes on chunk"},
		{rule: "workspace_export_result: a chunk carries 1 byte to 64 KiB and no error_code", frame: res(`"outcome":"chunk","offset":0,"data":"QQ==","error_code":"export_failed"`), want: "workspace_export_result.error_code: must be empty on chunk"},
		{rule: "workspace_export_result: completed carries no data and no error_code", frame: res(`"outcome":"completed","offset":0`)},
		{rule: "workspace_export_result: completed carries no data and no error_code", frame: res(`"outcome":"completed","offset":1,"data":"QQ=="`), want: "workspace_export_result.completed: carries no data and no error_code"},
		{rule: "workspace_export_result: completed carries no data and no error_code", frame: res(`"outcome":"completed","offset":1,"error_code":"export_failed"`), want: "workspace_export_result.completed: carries no data and no error_code"},
		{rule: "workspace_export_result: rejected carries resource_unavailable or read_unsupported", frame: res(`"outcome":"rejected","offset":0,"error_code":"resource_unavailable"`)},
		{rule: "workspace_export_result: rejected carries resource_unavailable or read_unsupported", frame: res(`"outcome":"rejected","offset":0,"error_code":"read_unsupported"`)},
		{rule: "workspace_export_result: rejected carries resource_unavailable or read_unsupported", frame: res(`"outcome":"rejected","offset":0,"error_code":"export_failed"`), want: "workspace_export_result.error_code: must be a listed code for outcome rejected"},
		{rule: "workspace_export_result: failed carries invalid_request or export_failed, and no data", frame: res(`"outcome":"failed","offset":0,"error_code":"invalid_request"`)},
		{rule: "workspace_export_result: failed carries invalid_request or export_failed, and no data", frame: res(`"outcome":"failed","offset":65536,"error_code":"export_failed"`)},
		{rule: "workspace_export_result: failed carries invalid_request or export_failed, and no data", frame: res(`"outcome":"failed","offset":0,"error_code":"read_unsupported"`), want: "workspace_export_result.error_code: must be a listed code for outcome failed"},
		{rule: "workspace_export_result: failed carries invalid_request or export_failed, and no data", frame: res(`"outcome":"failed","offset":0,"error_code":"export_failed","data":"QQ=="`), want: "workspace_export_result.data: must be absent on failed"},
		{rule: "workspace_export_result: the payload is at most 96 KiB", frame: res(`"outcome":"chunk","offset":0,"data":` + b64(65536))},
		{rule: "workspace_export_result: the payload is at most 96 KiB", frame: res(`"outcome":"chunk","offset":0,"data":` + b64(72<<10)), want: "workspace_export_result.payload: must be at most 98304 bytes"},
	}
	return cases
}

func suspensionCases() []frameCase {
	type c = frameCase
	var cases []frameCase
	for _, typ := range []string{"environment_quiesce", "environment_resume"} {
		req := func(members string) string { return frame(typ, "susp-1", "{"+members+"}") }
		cases = append(cases,
			c{rule: typ + ": environment_id is required and not blank", frame: req(`"environment_id":"env-1","suspend_id":"attempt-1"`)},
			c{rule: typ + ": environment_id is required and not blank", frame: req(`"suspend_id":"attempt-1"`), want: typ + ".environment_id: is required"},
			c{rule: typ + ": environment_id is required and not blank", frame: req(`"environment_id":"  ","suspend_id":"attempt-1"`), want: typ + ".environment_id: must not be blank"},
			c{rule: typ + ": suspend_id is 1 to 128 bytes", frame: req(`"environment_id":"env-1","suspend_id":"` + strings.Repeat("s", 128) + `"`)},
			c{rule: typ + ": suspend_id is 1 to 128 bytes", frame: req(`"environment_id":"env-1","suspend_id":"` + strings.Repeat("s", 129) + `"`), want: typ + ".suspend_id: must be 1 to 128 bytes"},
			c{rule: typ + ": suspend_id is 1 to 128 bytes", frame: req(`"environment_id":"env-1","suspend_id":""`), want: typ + ".suspend_id: must be 1 to 128 bytes"},
			c{rule: typ + ": suspend_id is 1 to 128 bytes", frame: req(`"environment_id":"env-1"`), want: typ + ".suspend_id: is required"},
			c{rule: typ + ": rollback is an optional boolean", frame: req(`"rollback":true,"environment_id":"env-1","suspend_id":"attempt-1"`)},
			c{rule: typ + ": rollback is an optional boolean", frame: req(`"rollback":"true","environment_id":"env-1","suspend_id":"attempt-1"`), want: typ + ".rollback: must be a JSON boolean"},
		)
	}
	for _, typ := range []string{"environment_quiesced", "environment_resumed"} {
		res := func(members string) string { return frame(typ, "susp-1", "{"+members+"}") }
		cases = append(cases,
			c{rule: typ + ": environment_id and suspend_id echo the request and are not blank", frame: res(`"environment_id":"env-1","suspend_id":"attempt-1","accepted":true`)},
			c{rule: typ + ": environment_id and suspend_id echo the request and are not blank", frame: res(`"environment_id":"","suspend_id":"attempt-1","accepted":true`), want: typ + ".environment_id: must not be blank"},
			c{rule: typ + ": environment_id and suspend_id echo the request and are not blank", frame: res(`"environment_id":"env-1","suspend_id":" ","accepted":true`), want: typ + ".suspend_id: must not be blank"},
			c{rule: typ + ": environment_id and suspend_id echo the request and are not blank", frame: res(`"environment_id":"env-1","accepted":true`), want: typ + ".suspend_id: is required"},
			c{rule: typ + ": accepted is required, and accepted carries no error_code", frame: res(`"environment_id":"env-1","suspend_id":"attempt-1","accepted":false,"error_code":"resource_busy"`)},
			c{rule: typ + ": accepted is required, and accepted carries no error_code", frame: res(`"environment_id":"env-1","suspend_id":"attempt-1","accepted":true,"error_code":"resource_busy"`), want: typ + ".error_code: must be empty when accepted is true"},
			c{rule: typ + ": accepted is required, and accepted carries no error_code", frame: res(`"environment_id":"env-1","suspend_id":"attempt-1"`), want: typ + ".accepted: is required"},
			c{rule: typ + ": a refusal carries invalid_request, resource_busy or not_suspended", frame: res(`"environment_id":"env-1","suspend_id":"attempt-1","accepted":false,"error_code":"invalid_request"`)},
			c{rule: typ + ": a refusal carries invalid_request, resource_busy or not_suspended", frame: res(`"environment_id":"env-1","suspend_id":"attempt-1","accepted":false,"error_code":"not_suspended"`)},
			c{rule: typ + ": a refusal carries invalid_request, resource_busy or not_suspended", frame: res(`"environment_id":"env-1","suspend_id":"attempt-1","accepted":false`), want: typ + ".error_code: must be invalid_request, resource_busy or not_suspended when not accepted"},
			c{rule: typ + ": a refusal carries invalid_request, resource_busy or not_suspended", frame: res(`"environment_id":"env-1","suspend_id":"attempt-1","accepted":false,"error_code":"resource_unavailable"`), want: typ + ".error_code: must be invalid_request, resource_busy or not_suspended when not accepted"},
		)
	}
	return cases
}
