package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Shard says that a run played one share of a selection split across machines
// (`wirecheck certify --shard K/N`), or, with Index 0, that it is the merge of all N shares
// (`wirecheck merge`). Merge refuses shards whose Count, Total, Catalog or Selection differ.
type Shard struct {
	Index int // K, 1-based; 0 in a merged report
	Count int // N
	// Total is how many scenarios the whole selection had, across every shard.
	Total int
	// Catalog is CatalogDigest of the catalog the selection came from ("" when unknown).
	Catalog string
	// Selection is SelectionDigest of the whole selection's ids: the shards of one certification
	// agree on it, and the merged cases must have exactly these ids.
	Selection string
}

// describe is the shard in words, for the reports' headers.
func (s *Shard) describe() string {
	if s == nil {
		return ""
	}
	if s.Index == 0 {
		return fmt.Sprintf("merged from %d shards (%d scenarios)", s.Count, s.Total)
	}
	return fmt.Sprintf("%d/%d of a selection of %d scenarios", s.Index, s.Count, s.Total)
}

// SelectionDigest is the SHA-256 (hex) of the ids, sorted, one per line: what every shard of one
// certification records, whatever share it played.
func SelectionDigest(ids []string) string {
	sorted := slices.Sorted(slices.Values(ids))
	sum := sha256.Sum256([]byte(strings.Join(sorted, "\n") + "\n"))
	return hex.EncodeToString(sum[:])
}

// ShardOf is the shard (1-based) of the i-th id (0-based) of a selection sorted by id, split in
// count shards: round-robin, so shard sizes differ by at most one and every family is spread
// over every shard.
func ShardOf(i, count int) int { return i%count + 1 }
