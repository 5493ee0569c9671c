package store_test

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// BenchmarkJournalAppend is the journal's write path, one fsynced commit per frame at most, by
// one writer (a single Run) and by many at once (many Runs, as under `wirecheck load`): the
// parallel case is what group commit is for. ns/op is per Append.
func BenchmarkJournalAppend(b *testing.B) {
	for _, par := range []int{1, 64} {
		b.Run(fmt.Sprintf("writers-%d", par), func(b *testing.B) {
			st, err := store.Open(filepath.Join(b.TempDir(), "core.db"), store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			ev := store.Event{Kind: store.EventReceived, Type: proto.TypeDelta, ID: "run", Payload: []byte(`{"delta":"some streamed text","sequence":1}`)}
			var n atomic.Int64
			b.SetParallelism(par)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				turn := fmt.Sprintf("turn-%d", n.Add(1))
				for pb.Next() {
					if _, err := st.Append(turn, ev); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
