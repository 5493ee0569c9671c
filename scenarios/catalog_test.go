package scenarios

import "testing"

func TestEmbeddedCatalogLoads(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatalf("catalog does not load:\n%v", err)
	}
	if len(c.Scenarios) == 0 {
		t.Fatal("empty catalog")
	}
	for _, s := range c.Scenarios {
		if len(s.Spec) == 0 {
			t.Errorf("%s (%s): every catalog scenario names its spec references", s.ID, s.Pos)
		}
	}
}
