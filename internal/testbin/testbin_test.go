package testbin

import (
	"os"
	"testing"
)

// A second build of unchanged sources leaves the binary as it was: no link, the same file (go
// build only touches its modification time).
func TestASecondBuildDoesNotLinkAgain(t *testing.T) {
	t.Setenv("WIRECHECK_TESTBIN_DIR", t.TempDir())
	first, err := Build("github.com/wirecheck/wirecheck/internal/misbehave")
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Build("github.com/wirecheck/wirecheck/internal/misbehave")
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(second)
	if err != nil {
		t.Fatal(err)
	}
	if second != first || !os.SameFile(before, after) {
		t.Fatalf("the second build wrote a new file %s; the first was %s", second, first)
	}
	// Another environment is another binary, so the two never relink each other.
	static, err := Path("github.com/wirecheck/wirecheck/internal/misbehave", "CGO_ENABLED=0")
	if err != nil {
		t.Fatal(err)
	}
	if static == first {
		t.Fatalf("a static build would overwrite the default one at %s", first)
	}
}
