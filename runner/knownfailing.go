package runner

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/wirecheck/wirecheck/scenarios"
)

// KnownFailing is a list of scenario id patterns expected to fail. Listed scenarios still run; a
// listed scenario that passes fails the run, so the list shrinks as the implementation improves.
type KnownFailing struct {
	patterns []string
}

// ParseKnownFailing reads one pattern per line; `#` starts a comment, blank lines are ignored.
func ParseKnownFailing(r io.Reader) (*KnownFailing, error) {
	k := &KnownFailing{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if strings.ContainsAny(text, " \t") {
			return nil, fmt.Errorf("known-failing line %d: %q is not one scenario id pattern", line, text)
		}
		k.patterns = append(k.patterns, text)
	}
	return k, sc.Err()
}

// Has reports whether a scenario id is listed.
func (k *KnownFailing) Has(id string) bool {
	if k == nil {
		return false
	}
	for _, p := range k.patterns {
		if scenarios.MatchID(p, id) {
			return true
		}
	}
	return false
}
