package main

import (
	"bytes"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/registry"
)

// TestPrintInspectEscapes: inspect prints nothing a registry or a layout
// folder wrote with its terminal controls live, digests included (a
// layout's referrer descriptors are not checked by the client). Before,
// digests were printed as they came.
func TestPrintInspectEscapes(t *testing.T) {
	const esc = "sha256:\x1b]0;pwned\x07"
	in := &registry.Inspection{
		Resolved: &registry.Resolved{
			Layout: registry.Layout{
				Format: registry.FormatAgentSkills,
				Config: ocispec.Descriptor{MediaType: registry.MediaTypeConfig, Digest: esc, Size: 2},
				Layers: []ocispec.Descriptor{{MediaType: registry.MediaTypeContent, Digest: esc, Size: 3}},
			},
		},
		Referrers: []ocispec.Descriptor{{MediaType: ocispec.MediaTypeImageManifest, Digest: esc, Size: 4}},
	}
	in.Ref.Digest = esc
	var out bytes.Buffer
	printInspect(&command.Env{Stdout: &out}, in, nil)
	if strings.ContainsAny(out.String(), "\x1b\x07") {
		t.Fatalf("inspect printed terminal controls:\n%q", out.String())
	}
	if !strings.Contains(out.String(), `sha256:\x1b]0;pwned\x07`) {
		t.Errorf("inspect did not show the escaped digest:\n%s", out.String())
	}
}
