package certify_test

import (
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/certify"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string]certify.Shard{"1/1": {1, 1}, "2/3": {2, 3}, "3/3": {3, 3}} {
		got, err := certify.ParseShard(in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "3", "0/3", "4/3", "1/0", "a/b", "-1/3", "1/3/5"} {
		if _, err := certify.ParseShard(in); err == nil {
			t.Errorf("ParseShard(%q) accepted", in)
		}
	}
}

// Every scenario of the selection lands in exactly one shard, the shares differ by at most one,
// and the order the selection comes in does not matter.
func TestSelectShardDealsTheSortedSelectionRoundRobin(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	sel := runner.Select(cat, runner.Options{})
	reversed := slices.Clone(sel)
	slices.Reverse(reversed)
	for _, n := range []int{1, 2, 3, 7} {
		seen := map[string]int{}
		for k := 1; k <= n; k++ {
			share := certify.SelectShard(sel, certify.Shard{Index: k, Count: n})
			if lo := len(sel) / n; len(share) < lo || len(share) > lo+1 {
				t.Errorf("shard %d/%d has %d of %d scenarios", k, n, len(share), len(sel))
			}
			if diff := cmp.Diff(ids(share), ids(certify.SelectShard(reversed, certify.Shard{Index: k, Count: n}))); diff != "" {
				t.Errorf("shard %d/%d depends on the selection's order (-sorted +reversed):\n%s", k, n, diff)
			}
			for _, sc := range share {
				seen[sc.ID]++
			}
		}
		if len(seen) != len(sel) {
			t.Errorf("%d shards hold %d of the %d scenarios", n, len(seen), len(sel))
		}
		for id, c := range seen {
			if c != 1 {
				t.Errorf("%d shards: %s is in %d of them", n, id, c)
			}
		}
	}
}

func ids(scs []*scenarios.Scenario) []string {
	var out []string
	for _, sc := range scs {
		out = append(out, sc.ID)
	}
	return out
}

// The digest changes with any file's path or bytes, and only with them.
func TestCatalogDigest(t *testing.T) {
	digest := func(fsys fstest.MapFS) string {
		d, err := certify.CatalogDigest(fsys)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := fstest.MapFS{"a/one.yaml": {Data: []byte("id: a/one\n")}, "b.yaml": {Data: []byte("id: b\n")}}
	same := fstest.MapFS{"b.yaml": {Data: []byte("id: b\n")}, "a/one.yaml": {Data: []byte("id: a/one\n")}}
	if digest(base) != digest(same) {
		t.Error("the same files give different digests")
	}
	for name, other := range map[string]fstest.MapFS{
		"a changed byte": {"a/one.yaml": {Data: []byte("id: a/onE\n")}, "b.yaml": {Data: []byte("id: b\n")}},
		"a renamed file": {"a/two.yaml": {Data: []byte("id: a/one\n")}, "b.yaml": {Data: []byte("id: b\n")}},
		"bytes moved":    {"a/one.yaml": {Data: []byte("id: a/one\nid: b\n")}, "b.yaml": {Data: []byte("")}},
	} {
		if digest(other) == digest(base) {
			t.Errorf("%s keeps the digest", name)
		}
	}
}
