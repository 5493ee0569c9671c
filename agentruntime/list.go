package agentruntime

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// listUnits is List for every adapter: the IDs of units (read under mu), sorted, each with its
// current health; a unit removed meanwhile is left out.
func listUnits[U any](ctx context.Context, mu *sync.Mutex, units map[UnitID]U, health func(context.Context, UnitID) (Status, error)) ([]Status, error) {
	mu.Lock()
	ids := make([]UnitID, 0, len(units))
	for id := range units {
		ids = append(ids, id)
	}
	mu.Unlock()
	slices.Sort(ids)
	out := make([]Status, 0, len(ids))
	for _, id := range ids {
		st, err := health(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}
