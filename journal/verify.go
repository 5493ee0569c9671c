package journal

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
)

// Problem is one thing wrong with a journal.
type Problem struct {
	File   string // the journal's path, as given
	Record int    // the record the problem is about (-1: the file as a whole)
	Kind   ProblemKind
	Detail string
}

// ProblemKind tells the tampering cases apart.
type ProblemKind string

const (
	Malformed ProblemKind = "malformed" // a line that is not a record, or records out of place
	Edited    ProblemKind = "edited"    // a record's bytes differ from what the next one chained
	Dropped   ProblemKind = "dropped"   // record numbers skip
	Truncated ProblemKind = "truncated" // the journal ends without its anchor
	Tampered  ProblemKind = "anchor"    // the anchor contradicts the chain or its signature fails
	WrongKey  ProblemKind = "wrong-key" // the anchor is signed by another key than the one given
	Unsigned  ProblemKind = "unsigned"  // a key was given, the anchor is not signed
	Manifest  ProblemKind = "manifest"  // the bundle's manifest and its files disagree
	Disagrees ProblemKind = "disagrees" // the bundle's report says otherwise than its journals
)

func (p Problem) Error() string {
	if p.Record < 0 {
		return fmt.Sprintf("%s: %s", p.File, p.Detail)
	}
	return fmt.Sprintf("%s: record %d: %s", p.File, p.Record, p.Detail)
}

// Verify checks one journal: every line a record, numbered from 0 without a gap, each chained to
// the line before it, the header first and the anchor last, the anchor agreeing with the chain
// and, when pub is given, signed by pub. name is used in the problems only.
func Verify(name string, data []byte, pub ed25519.PublicKey) []Problem {
	var probs []Problem
	add := func(rec int, k ProblemKind, format string, args ...any) {
		probs = append(probs, Problem{File: name, Record: rec, Kind: k, Detail: fmt.Sprintf(format, args...)})
	}
	if len(data) == 0 {
		add(-1, Truncated, "empty: not even the header was written")
		return probs
	}
	lines := bytes.Split(data, []byte("\n"))
	cut := len(lines[len(lines)-1]) > 0 // the last line has no newline: it was cut off
	if !cut {
		lines = lines[:len(lines)-1]
	}
	prev, expect := zeroHash, 0
	var last *Record
	cutSaid, anchorSeen := false, false
	for i, line := range lines {
		sum := sha256.Sum256(line)
		hash := hex.EncodeToString(sum[:])
		rec, err := DecodeRecord(line)
		if err != nil {
			if cut && i == len(lines)-1 {
				add(expect, Truncated, "truncated tail: line %d is cut off in the middle of a record (%v)", i+1, err)
				cutSaid = true
			} else {
				add(expect, Malformed, "line %d: %v", i+1, err)
			}
			prev, expect, last = hash, expect+1, nil
			continue
		}
		gap := false
		switch {
		case rec.N > expect:
			gap = true
			if rec.N == expect+1 {
				add(expect, Dropped, "record %d is missing: line %d holds record %d right after record %d", expect, i+1, rec.N, expect-1)
			} else {
				add(expect, Dropped, "records %d to %d are missing: line %d holds record %d right after record %d", expect, rec.N-1, i+1, rec.N, expect-1)
			}
		case rec.N < expect:
			gap = true
			add(rec.N, Malformed, "line %d holds record %d again (or out of order): record %d was expected", i+1, rec.N, expect)
		}
		switch {
		case i == 0 && rec.Kind != KindHeader:
			add(rec.N, Malformed, "the first record is a %s, not the header", rec.Kind)
		case i > 0 && rec.Kind == KindHeader:
			add(rec.N, Malformed, "a second header on line %d", i+1)
		case rec.Kind == KindAnchor && i != len(lines)-1:
			add(rec.N, Malformed, "the anchor is on line %d but %d more lines follow it", i+1, len(lines)-1-i)
		}
		if !gap && rec.Prev != prev {
			if rec.Kind == KindAnchor && i == len(lines)-1 && !anchorSignatureHolds(rec.Anchor, pub) {
				// The anchor's own head was changed: its signature no longer holds; said below.
			} else {
				add(rec.N-1, Edited, "was edited: its line hashes to %s, but record %d chains %s", short(prev), rec.N, short(rec.Prev))
			}
		}
		prev, expect, last = hash, rec.N+1, &rec
		anchorSeen = anchorSeen || rec.Kind == KindAnchor
	}
	if cutSaid || (anchorSeen && last != nil && last.Kind != KindAnchor) { // said above
		return probs
	}
	if last == nil || last.Kind != KindAnchor {
		end := expect - 1
		add(end, Truncated, "truncated tail: the journal ends at record %d without its anchor (records after it may be missing)", end)
		return probs
	}
	return append(probs, checkAnchor(name, last, pub)...)
}

// checkAnchor compares the anchor with the chain and, given pub, its signature.
func checkAnchor(name string, rec *Record, pub ed25519.PublicKey) []Problem {
	a := rec.Anchor
	p := func(k ProblemKind, format string, args ...any) []Problem {
		return []Problem{{File: name, Record: rec.N, Kind: k, Detail: "the anchor " + fmt.Sprintf(format, args...)}}
	}
	if a.Records != rec.N || a.Head != rec.Prev {
		return p(Tampered, "was tampered with: it claims %d records ending in %s, the chain has %d ending in %s",
			a.Records, short(a.Head), rec.N, short(rec.Prev))
	}
	if pub == nil {
		return nil
	}
	if a.Sig == "" {
		return p(Unsigned, "is not signed, yet a public key was given to check it")
	}
	if want := KeyID(pub); a.KeyID != want {
		return p(WrongKey, "is signed by key %s, not by the given key %s: wrong key", a.KeyID, want)
	}
	if !anchorSignatureHolds(a, pub) {
		return p(Tampered, "was tampered with: its signature does not verify with the given key %s", a.KeyID)
	}
	return nil
}

// anchorSignatureHolds: pub is nil (nothing to check), or the anchor is signed by pub over its
// own head and count.
func anchorSignatureHolds(a *Anchor, pub ed25519.PublicKey) bool {
	if pub == nil || a.Sig == "" || a.KeyID != KeyID(pub) {
		return true // the other checks say what is wrong
	}
	sig, err := base64.StdEncoding.DecodeString(a.Sig)
	return err == nil && ed25519.Verify(pub, AnchorMessage(a.Head, a.Records), sig)
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12] + "…"
	}
	return hash
}
