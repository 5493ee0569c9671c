package scenarios

import (
	"io/fs"
	"strings"
	"testing"
)

// FuzzParse: the scenario loader never panics, and whatever it accepts links without panicking.
// The seeds are the catalog's small scenarios, one document each (large inputs slow the mutator to
// a crawl without finding more).
func FuzzParse(f *testing.F) {
	_ = fs.WalkDir(EmbeddedFS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			data, _ := fs.ReadFile(EmbeddedFS(), p)
			for _, doc := range strings.Split(string(data), "\n---\n") {
				if len(doc) < 1500 {
					f.Add([]byte(doc))
				}
			}
		}
		return nil
	})
	f.Add([]byte("id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: \"${run}\", payload: {delivery_id: {$regex: '^c', sample: c}}}\n"))
	f.Add([]byte("id: a\ntitle: t\ntests: core\nsteps:\n  - check: {input: {run: r, key: \"${k}\", gives: [{content: [{type: input_text, text: x}]}]}}\n  - stop_reading: runtime\n  - repeat:\n      count: 3\n      steps:\n        - core: {type: device_shutdown, payload: {reason: \"q ${i}\"}}\n  - resume_reading: runtime\n"))
	f.Add([]byte("id: a\ntitle: t\nsteps:\n  - repeat:\n      count: 2\n      steps:\n        - core: {type: prompt_cancel, id: \"r-${i+1}\", payload: {delivery_id: {$repeat: {item: \"d-${i-1}\", count: 2}}}}\n  - bound: {from: core, names: [x]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		scs, err := Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		_, _ = Link(scs)
	})
}
