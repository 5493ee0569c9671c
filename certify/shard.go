package certify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// Shard is the K-th (Index, 1-based) of N (Count) shares of a selection.
type Shard struct{ Index, Count int }

// ParseShard reads "K/N", 1 ≤ K ≤ N.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(k)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: give K/N, e.g. 2/3", s)
	}
	sh := Shard{Index: index, Count: count}
	return sh, sh.valid()
}

func (s Shard) valid() error {
	if s.Count < 1 || s.Index < 1 || s.Index > s.Count {
		return fmt.Errorf("shard %d/%d: K must be in 1..N", s.Index, s.Count)
	}
	return nil
}

// SelectShard returns the share of the selection shard s plays: the selection sorted by id, dealt
// round-robin (the i-th id to shard i mod N + 1, reports.ShardOf). Round-robin rather than a hash
// of each id: every shard computes the same whole selection (same catalog, same filters), so
// dealing it is deterministic, and it balances exactly (sizes differ by at most one) where a
// hash only balances on average (±6 of 50 for 150 scenarios in 3 shards); and since ids sort by
// family, every shard gets its share of each family, the slow ones too. What a hash would
// give, a scenario's shard not moving when another is added, does not matter when every shard
// runs the same catalog at once, which merge checks.
func SelectShard(sel []*scenarios.Scenario, s Shard) []*scenarios.Scenario {
	sorted := slices.Clone(sel)
	slices.SortStableFunc(sorted, func(a, b *scenarios.Scenario) int { return strings.Compare(a.ID, b.ID) })
	var out []*scenarios.Scenario
	for i, sc := range sorted {
		if reports.ShardOf(i, s.Count) == s.Index {
			out = append(out, sc)
		}
	}
	return out
}

// CatalogDigest is the SHA-256 (hex) of a catalog's files: for each, in path order, its
// slash-separated path, a NUL, its length in decimal, a NUL, its bytes. Two machines with the same
// catalog agree on it; any change to a scenario changes it.
func CatalogDigest(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("catalog digest: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
