package scenarios

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// Every catalog file validates against the committed scenario schema, so editors that use it
// agree with the loader.
func TestCatalogMatchesTheScenarioSchema(t *testing.T) {
	f, err := os.Open("scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("scenario.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = fs.WalkDir(EmbeddedFS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		data, err := fs.ReadFile(EmbeddedFS(), p)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var v any
			if err := dec.Decode(&v); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return err
			}
			n++
			if err := schema.Validate(v); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no catalog documents found")
	}
	// The schema is not a rubber stamp: a step kind the loader refuses fails it too.
	if err := schema.Validate(map[string]any{"id": "a", "title": "t", "steps": []any{map[string]any{"send": map[string]any{}}}}); err == nil {
		t.Fatal("schema accepted an unknown step kind")
	}
}
