package main

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The anchors GitHub gives the headings the catalog cites.
func TestSlugFollowsGitHub(t *testing.T) {
	for heading, want := range map[string]string{
		"4.6 `prompt_cancel` (C→R) and `device_shutdown` (C→R)":                                                 "46-prompt_cancel-cr-and-device_shutdown-cr",
		"1.2 Bootstrap request/response [R: `transport/bootstrap.go` `[49269f0]`, `runtimegateway/handler.go`]": "12-bootstrap-requestresponse-r-transportbootstrapgo-49269f0-runtimegatewayhandlergo",
		"4.7 Run events (R→C, `id` = Run ID)":                                                                   "47-run-events-rc-id--run-id",
		"What each acknowledgement proves":                                                                      "what-each-acknowledgement-proves",
		"14. Policy Enforcement Hook":                                                                           "14-policy-enforcement-hook",
		"AgentRuntime port — fact sheet":                                                                        "agentruntime-port--fact-sheet",
		"See [the spec](spec.md) **now**":                                                                       "see-the-spec-now",
	} {
		if got := Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestHeadingsOfMarkdownAndOfStrippedText(t *testing.T) {
	md := "# Title\n\n```\n# not a heading\n```\n## Part ##\ntext\n## Part\n"
	if diff := cmp.Diff([]string{"title", "part", "part-1"}, Anchors(md)); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
	plain := "Intro sentence that ends.\n\nOwnership and connection\n\nA Runtime connects in this order:\n\n" +
		"Capability\tCore requires it when\n\nList item\nnext item\n\nMessage families\n"
	if diff := cmp.Diff([]string{"ownership-and-connection", "message-families"}, Anchors(plain)); diff != "" {
		t.Errorf("stripped text (-want +got):\n%s", diff)
	}
}

// The committed anchors are those of the spec files, when they are at hand (WIRECHECK_SPEC_DIR, or
// the shared spec directory beside the repository).
func TestCommittedAnchorsAreCurrent(t *testing.T) {
	dir := os.Getenv("WIRECHECK_SPEC_DIR")
	if dir == "" {
		dir = "../../../../shared/spec"
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no spec directory at %s (set WIRECHECK_SPEC_DIR): %v", dir, err)
	}
	want, err := render(dir, "../../../docs/contract-harness.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../spec_anchors.txt")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Fatalf("scenarios/spec_anchors.txt is stale: in scenarios/, run go run ./internal/specanchors -spec %s -o spec_anchors.txt\n(-spec +committed):\n%s", dir, diff)
	}
}
