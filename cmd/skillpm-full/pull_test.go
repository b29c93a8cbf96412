package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/oci"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/registry"
)

// hostileLayout writes an OCI image layout holding one skill artifact,
// tagged 1.0.0, whose config is cfg and whose manifest carries ann.
func hostileLayout(t *testing.T, dir, cfg string, ann map[string]string) {
	t.Helper()
	ctx := context.Background()
	store, err := oci.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	push := func(mediaType string, data []byte) ocispec.Descriptor {
		d := content.NewDescriptorFromBytes(mediaType, data)
		if err := store.Push(ctx, d, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	var layer bytes.Buffer
	zw := gzip.NewWriter(&layer)
	tw := tar.NewWriter(zw)
	body := "---\nname: pdf\ndescription: PDF things. Use it on PDFs.\n---\nbody\n"
	tw.WriteHeader(&tar.Header{Name: "SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))})
	tw.Write([]byte(body))
	tw.Close()
	zw.Close()
	m := ocispec.Manifest{
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: registry.ArtifactType,
		Config:       push(registry.MediaTypeConfig, []byte(cfg)),
		Layers:       []ocispec.Descriptor{push(registry.MediaTypeContent, layer.Bytes())},
		Annotations:  ann,
	}
	m.SchemaVersion = 2
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	md := push(ocispec.MediaTypeImageManifest, data)
	if err := store.Tag(ctx, md, "1.0.0"); err != nil {
		t.Fatal(err)
	}
}

// TestPullRefusesNameAsPath pulls, without -o, artifacts whose name (from
// the config or the manifest annotation) is a path. Nothing may be
// written outside the current folder, nor anywhere at all.
func TestPullRefusesNameAsPath(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("SKILLPM_HOME", t.TempDir())
	t.Setenv("NO_COLOR", "1")
	abs := filepath.Join(t.TempDir(), "abs")
	tests := []struct {
		name     string
		cfg      string
		ann      map[string]string
		wantCode int
		wantErr  string
	}{
		{"config name climbs", `{"name":"../escaped","version":"1.0.0"}`, nil, command.ExitIntegrity, `"../escaped", which is not a valid skill name`},
		{"config name absolute", `{"name":"` + abs + `","version":"1.0.0"}`, nil, command.ExitIntegrity, "not a valid skill name"},
		{"annotation name climbs", `{"version":"1.0.0"}`, map[string]string{registry.AnnotationSkillName: "../escaped"}, command.ExitUsage, `"../escaped" is not a skill name; pass -o DIR`},
		{"annotation name absolute", `{"version":"1.0.0"}`, map[string]string{registry.AnnotationSkillName: abs}, command.ExitUsage, "pass -o DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outer := t.TempDir()
			layout := filepath.Join(outer, "layout")
			hostileLayout(t, layout, tt.cfg, tt.ann)
			cwd := filepath.Join(outer, "cwd")
			if err := os.Mkdir(cwd, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Chdir(cwd)
			code, _, stderr := lintRun(t, "pull", "oci:"+layout+":1.0.0")
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("pull = exit %d, stderr %q; want exit %d and %q", code, stderr, tt.wantCode, tt.wantErr)
			}
			entries, _ := os.ReadDir(outer)
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			if !slices.Equal(got, []string{"cwd", "layout"}) {
				t.Errorf("beside the working folder: %q; want only cwd and layout", got)
			}
			if left, _ := os.ReadDir(cwd); len(left) != 0 {
				t.Errorf("pull left %d entries in the working folder", len(left))
			}
			if _, err := os.Lstat(abs); err == nil {
				t.Errorf("pull wrote %s", abs)
			}
		})
	}
}

func TestPullDir(t *testing.T) {
	tests := []struct {
		name, repo, want string
	}{
		{"pdf", "acme/skills/pdf", "pdf"},
		{"", "acme/skills/pdf", "pdf"},
		{"../escaped", "acme/skills/pdf", "pdf"},
		{"/abs/path", "acme/skills/pdf", "pdf"},
		{"../escaped", "acme/skills/Not_A_Name", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		res := &registry.Resolved{Layout: registry.Layout{Annotations: map[string]string{registry.AnnotationSkillName: tt.name}}}
		if got := pullDir(res, registry.Reference{Registry: "ghcr.io", Repository: tt.repo}); got != tt.want {
			t.Errorf("pullDir(name %q, repo %q) = %q; want %q", tt.name, tt.repo, got, tt.want)
		}
	}
}
