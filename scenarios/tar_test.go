package scenarios

import (
	"archive/tar"
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// tarOf writes entries as a Runtime's tar writer might: with times, owners, directories and links.
func tarOf(t testing.TB, entries ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range entries {
		if h.ModTime.IsZero() {
			h.ModTime, h.Uid, h.Uname = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC), 1000, "agent"
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(bytes.Repeat([]byte("x"), int(h.Size))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// $tar compares the regular files of an archive, their names cleaned and their bytes exactly, and
// nothing else the Runtime chooses: times, owners, modes, directories, links.
func TestTarMatcherComparesFilesAndTheirBytes(t *testing.T) {
	archive := tarOf(t,
		&tar.Header{Typeflag: tar.TypeDir, Name: "notes/", Mode: 0o755},
		&tar.Header{Typeflag: tar.TypeReg, Name: "./notes/a.txt", Mode: 0o600, Size: 3},
		&tar.Header{Typeflag: tar.TypeSymlink, Name: "link", Linkname: "notes/a.txt"},
		&tar.Header{Typeflag: tar.TypeReg, Name: strings.Repeat("d/", 60) + "long.txt", Mode: 0o644, Size: 1}, // a PAX name
		&tar.Header{Typeflag: tar.TypeReg, Name: "empty", Mode: 0o644},
	)
	long := strings.Repeat("d/", 60) + "long.txt"
	for _, c := range []struct {
		name, tmpl string
		actual     any
		why        string
	}{
		{"the files and their bytes", `{$tar: {notes/a.txt: eHh4, ` + long + `: eA==, empty: ""}}`, b64(archive), ""},
		{"a file's bytes differ", `{$tar: {notes/a.txt: eHk=, ` + long + `: eA==, empty: ""}}`, b64(archive), `archive.notes/a.txt: want "eHk=", got "eHh4"`},
		{"a file is missing", `{$tar: {notes/a.txt: eHh4, ` + long + `: eA==, empty: "", b.txt: ""}}`, b64(archive), `archive.b.txt: is missing`},
		{"a file is not expected", `{$tar: {notes/a.txt: eHh4, ` + long + `: eA==}}`, b64(archive), `archive.empty: is not expected`},
		{"contents may be matchers", `{$tar: {notes/a.txt: {$any: string}, ` + long + `: eA==, empty: ""}}`, b64(archive), ""},
		{"an archive with no files", `{$tar: {}}`, b64(tarOf(t)), ""},
		{"not base64", `{$tar: {}}`, "%%%", `archive: want a tar archive in base64: illegal base64 data at input byte 0`},
		{"not a string", `{$tar: {}}`, nil, `archive: want a tar archive in base64, got null`},
		{"not a tar archive", `{$tar: {}}`, b64([]byte("hello")), `archive: not a tar archive: unexpected EOF`},
		{"a file cut short", `{$tar: {}}`, b64(archive[:1024+2]), `archive: not a tar archive: ./notes/a.txt: unexpected EOF`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := NewBindings().Match(map[string]Value{"archive": tmpl(t, c.tmpl)}, map[string]any{"archive": c.actual})
			got := ""
			if m != nil {
				got = m.Error()
			}
			if got != c.why {
				t.Fatalf("got %q, want %q", got, c.why)
			}
		})
	}
}

// A later entry of the same name replaces the earlier, as extracting the archive would.
func TestTarFilesKeepsTheLastEntryOfAName(t *testing.T) {
	files, err := TarFiles(tarOf(t, &tar.Header{Typeflag: tar.TypeReg, Name: "a", Size: 1}, &tar.Header{Typeflag: tar.TypeReg, Name: "a", Size: 2}))
	if err != nil || len(files) != 1 || string(files["a"]) != "xx" {
		t.Fatalf("files %q, %v; want a: xx", files, err)
	}
}

// A scripted writer sends the archive of the template's files, bound placeholders substituted,
// and a reader matches it back.
func TestTarMatcherResolvesToItsArchive(t *testing.T) {
	b := NewBindings()
	b.Bind("content", "aGk=")
	tm := tmpl(t, `{$tar: {b.txt: "${content}", a/c.bin: ""}}`)
	v, err := b.Resolve(tm, readableValue, nil)
	if err != nil {
		t.Fatal(err)
	}
	archive, _ := base64.StdEncoding.DecodeString(v.(string))
	files, err := TarFiles(archive)
	if err != nil || len(files) != 2 || string(files["b.txt"]) != "hi" || len(files["a/c.bin"]) != 0 {
		t.Fatalf("the archive holds %q, %v", files, err)
	}
	if m := b.Match(tm, v); m != nil {
		t.Fatalf("the archive written does not match its own template: %v", m)
	}
	if got := Placeholders(tm); len(got) != 1 || got[0] != "content" {
		t.Errorf("placeholders %v, want [content]", got)
	}
}

// export_pull is the scripted Core's pull of a Runtime's export: a scenario that may test a Core
// cannot hold it, included or not.
func TestExportPullNeedsTestsRuntime(t *testing.T) {
	a, err := Parse("a.yaml", []byte("id: a\ntitle: t\ntests: runtime\nsteps:\n  - export_pull: {id: x}\n---\nid: b\ntitle: t\ninclude: [a]\nsteps:\n  - silence: core\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, errs := Link(a)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "a.yaml:5: b: export_pull is the scripted Core's pull of a Runtime's export: the scenario needs tests: runtime") {
		t.Fatalf("errors %v", errs)
	}
}

// FuzzTarFiles: reading an archive a peer under test sent never panics, never holds more bytes
// than the archive, and an archive TarArchive wrote reads back as its files.
func FuzzTarFiles(f *testing.F) {
	f.Add(TarArchive(map[string][]byte{"a": []byte("hello"), "d/b": nil}))
	f.Add(tarOf(f, &tar.Header{Typeflag: tar.TypeDir, Name: "d/"}, &tar.Header{Typeflag: tar.TypeReg, Name: strings.Repeat("n", 200), Size: 3}))
	f.Add([]byte{})
	f.Add(make([]byte, 1024))
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := TarFiles(data)
		if err != nil {
			return
		}
		held := 0
		for _, c := range files {
			held += len(c)
		}
		if held > len(data) {
			t.Fatalf("%d bytes of files out of a %d-byte archive", held, len(data))
		}
		again, err := TarFiles(TarArchive(files))
		if err != nil || len(again) != len(files) {
			t.Fatalf("the files written again read back as %d files, %v; want %d", len(again), err, len(files))
		}
		for name, c := range files {
			if !bytes.Equal(again[name], c) {
				t.Fatalf("%q reads back differently", name)
			}
		}
	})
}
