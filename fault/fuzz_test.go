package fault_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wirecheck/wirecheck/fault"
)

// FuzzLoadSchedule: the loader never panics, and what it accepts is a valid schedule a relay
// takes as it is.
func FuzzLoadSchedule(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("rules:\n  - {name: a, match: {id: \"${run}\", payload: {x: [1, {y: null}]}}, close: {half_open: true}}\n"))
	f.Add([]byte("seed: 18446744073709551615\nrules:\n  - {name: a, refuse_reconnect: {}}\n"))
	f.Add([]byte("rules:\n  - &r {name: a, drop: {}}\n  - *r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := fault.LoadSchedule("fuzz.yaml", data)
		if err != nil {
			if s != nil {
				t.Fatalf("an error and a schedule: %v", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("the loader accepted an invalid schedule: %v\n%s", err, data)
		}
		relay, err := fault.New("http://127.0.0.1:1/api/v1", s, fault.Options{})
		if err != nil {
			t.Fatalf("a relay refused a loaded schedule: %v\n%s", err, data)
		}
		relay.Close()
	})
}
