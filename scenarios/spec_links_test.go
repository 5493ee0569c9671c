package scenarios

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// specAnchors reads spec_anchors.txt: the anchors of the spec files' headings, generated from the
// spec by internal/specanchors (which also checks the file is current).
func specAnchors(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open("spec_anchors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out[l] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every spec link of every catalog scenario names a spec file and a heading anchor that exists.
func TestSpecLinksPointAtHeadingsThatExist(t *testing.T) {
	anchors := specAnchors(t)
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Scenarios {
		for _, link := range s.Spec {
			if !anchors[link] {
				t.Errorf("%s (%s): spec link %q is not a heading of the spec (scenarios/spec_anchors.txt)", s.ID, s.Pos, link)
			}
		}
	}
}
