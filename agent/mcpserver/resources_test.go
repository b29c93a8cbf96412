package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillpm/skillpm/agent"
)

// pngBytes is the start of a PNG file: binary, not UTF-8.
var pngBytes = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 0xff, 0xfe}

// resFixture is a project with one skill that has references, a binary
// asset, a file of unknown type, a link inside the skill and links out.
func resFixture(t *testing.T) (project string) {
	t.Helper()
	project = t.TempDir()
	writeFiles(t, project, map[string]string{
		".agents/skills/pdf/SKILL.md":            skillMD("pdf", "fill PDF forms", ""),
		".agents/skills/pdf/references/forms.md": "# Forms\n",
		".agents/skills/pdf/scripts/fill.py":     "print('hi')\n",
		".agents/skills/pdf/NOTES":               "plain words\n",
		".agents/skills/pdf/.git/config":         "[core]\n",
		"secret.txt":                             "outside\n",
	})
	dir := filepath.Join(project, ".agents/skills/pdf")
	if err := os.WriteFile(filepath.Join(dir, "assets-logo.png"), pngBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"escape.txt": filepath.Join(project, "secret.txt"),
		"up.txt":     "../../../secret.txt",
		"again.md":   "references/forms.md",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return project
}

func resSession(t *testing.T, c *agent.Catalog, res *Resources, changed chan<- struct{}) (*mcp.Server, *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	srv := New(c, ServerOptions{Version: "test", Resources: res})
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	copts := &mcp.ClientOptions{ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return srv, cs
}

func uris(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Resource {
	t.Helper()
	got := map[string]*mcp.Resource{}
	for r, err := range cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got[r.URI] = r
	}
	return got
}

func read(t *testing.T, cs *mcp.ClientSession, uri string) *mcp.ResourceContents {
	t.Helper()
	r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(r.Contents) != 1 {
		t.Fatalf("read %s: %d contents; want 1", uri, len(r.Contents))
	}
	return r.Contents[0]
}

func TestSkillResources(t *testing.T) {
	project := resFixture(t)
	c, err := agent.Build(context.Background(), agent.Options{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	res := NewResources(ResourceOptions{Warn: func(m string) { warnings = append(warnings, m) }})
	_, cs := resSession(t, c, res, make(chan struct{}, 1))

	if _, ok := cs.InitializeResult().Capabilities.Extensions[SkillsExtension]; !ok {
		t.Errorf("capabilities.extensions = %v; want %s", cs.InitializeResult().Capabilities.Extensions, SkillsExtension)
	}
	got := uris(t, cs)
	var names []string
	for u := range got {
		names = append(names, u)
	}
	sort.Strings(names)
	want := []string{
		"skill://index.json",
		"skill://pdf/NOTES",
		"skill://pdf/SKILL.md",
		"skill://pdf/again.md",
		"skill://pdf/assets-logo.png",
		"skill://pdf/references/forms.md",
		"skill://pdf/scripts/fill.py",
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("resources = %v; want %v (no .git, no links out of the skill)", names, want)
	}
	for uri, mime := range map[string]string{
		"skill://pdf/SKILL.md":        "text/markdown",
		"skill://pdf/NOTES":           "text/plain",
		"skill://pdf/assets-logo.png": "image/png",
		"skill://pdf/scripts/fill.py": "text/x-python",
		"skill://index.json":          "application/json",
	} {
		if r := got[uri]; r == nil || r.MIMEType != mime {
			t.Errorf("%s: mimeType = %+v; want %s", uri, r, mime)
		}
	}
	if r := got["skill://pdf/SKILL.md"]; r == nil || r.Name != "SKILL.md" || r.Description != "fill PDF forms" {
		t.Errorf("SKILL.md resource = %+v; want its path as name and the skill's description", r)
	}
	if r := got["skill://pdf/references/forms.md"]; r == nil || r.Name != "references/forms.md" || r.Size != int64(len("# Forms\n")) {
		t.Errorf("forms.md resource = %+v; want its path as name and its size", r)
	}
	if n := strings.Count(strings.Join(warnings, "\n"), "not serving"); n != 2 {
		t.Errorf("warnings = %q; want the two escaping links named", warnings)
	}

	if rc := read(t, cs, "skill://pdf/SKILL.md"); rc.Text != skillMD("pdf", "fill PDF forms", "") || rc.MIMEType != "text/markdown" {
		t.Errorf("SKILL.md = %+v", rc)
	}
	if rc := read(t, cs, "skill://pdf/again.md"); rc.Text != "# Forms\n" {
		t.Errorf("again.md (a link inside the skill) = %+v", rc)
	}
	if rc := read(t, cs, "skill://pdf/assets-logo.png"); !bytes.Equal(rc.Blob, pngBytes) || rc.Text != "" {
		t.Errorf("png = %+v; want the bytes as a blob", rc)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://pdf/up.txt"}); err == nil {
		t.Error("reading a link out of the skill succeeded")
	}

	var idx Index
	if err := json.Unmarshal([]byte(read(t, cs, IndexURI).Text), &idx); err != nil {
		t.Fatal(err)
	}
	wantIdx := Index{Schema: DiscoverySchema, Skills: []IndexEntry{{Type: "skill-md", Name: "pdf", Description: "fill PDF forms", URL: "skill://pdf/SKILL.md"}}}
	if !reflect.DeepEqual(idx, wantIdx) {
		t.Errorf("index = %+v; want %+v", idx, wantIdx)
	}
}

func TestSkillResourcesListChanged(t *testing.T) {
	project := t.TempDir()
	writeFiles(t, project, map[string]string{".agents/skills/one/SKILL.md": skillMD("one", "first", "")})
	build := func(ctx context.Context) ([]*agent.Skill, error) {
		c, err := agent.Build(ctx, agent.Options{Project: project})
		if err != nil {
			return nil, err
		}
		return c.Skills, nil
	}
	skills, _ := build(context.Background())
	res := NewResources(ResourceOptions{})
	changed := make(chan struct{}, 1)
	srv, cs := resSession(t, &agent.Catalog{Skills: skills}, res, changed)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	if res.Sync(srv, skills) {
		t.Error("Sync of the same skills reported a change")
	}

	writeFiles(t, project, map[string]string{".agents/skills/two/SKILL.md": skillMD("two", "second", ""), ".agents/skills/two/data.csv": "a,b\n"})
	go res.Watch(ctx, srv, build, 20*time.Millisecond)
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/resources/list_changed after a skill was installed")
	}
	got := uris(t, cs)
	if got["skill://two/SKILL.md"] == nil || got["skill://two/data.csv"] == nil {
		t.Errorf("resources after install = %v; want two's files", got)
	}
	if !strings.Contains(read(t, cs, IndexURI).Text, `"url": "skill://two/SKILL.md"`) {
		t.Error("index does not list the new skill")
	}

	if err := os.RemoveAll(filepath.Join(project, ".agents/skills/one")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/resources/list_changed after a skill was removed")
	}
	if got := uris(t, cs); got["skill://one/SKILL.md"] != nil {
		t.Error("a removed skill is still listed")
	}
}
