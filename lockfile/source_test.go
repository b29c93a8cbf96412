package lockfile

import (
	"strings"
	"testing"
)

func TestValidateSourcePins(t *testing.T) {
	const d = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
	commit := strings.Repeat("a", 40)
	entry := func(repo string, src *Source) *File {
		return &File{Skills: []Skill{{Name: "x", Version: "1.0.0", Repository: repo, Manifest: d, Source: src}}}
	}
	for _, tc := range []struct {
		name string
		f    *File
		want string // "" for valid
	}{
		{"git", entry("git+https://h/r.git//x", &Source{Commit: commit, Ref: "refs/tags/x/v1.0.0"}), ""},
		{"git commit only", entry("git+https://h/r.git", &Source{Commit: commit}), ""},
		{"local", entry("local:skills/x", &Source{Digest: d}), ""},
		{"oci", entry("ghcr.io/a/x", nil), ""},
		{"git without pin", entry("git+https://h/r.git", nil), "has no source pin"},
		{"oci with pin", entry("ghcr.io/a/x", &Source{Commit: commit}), "is an OCI repository"},
		{"short commit", entry("git+https://h/r.git", &Source{Commit: "abc123"}), "not a full commit id"},
		{"git with digest", entry("git+https://h/r.git", &Source{Commit: commit, Digest: d}), "pins a commit"},
		{"local with commit", entry("local:x", &Source{Commit: commit}), "pins a content digest"},
		{"ref not a ref", entry("git+https://h/r.git", &Source{Commit: commit, Ref: "main"}), "is not a tag or branch"},
		{"ref with a range", entry("git+https://h/r.git", &Source{Commit: commit, Ref: "refs/heads/a..b"}), "is not a tag or branch"},
		{"bad digest", entry("local:x", &Source{Digest: "sha256:xyz"}), "not a sha256 digest"},
		{"wellknown with url", entry("wellknown+https://example.com", &Source{Digest: d, URL: ".well-known/agent-skills/x.tar.gz"}), ""},
		{"local with url", entry("local:x", &Source{Digest: d, URL: "x.tar.gz"}), "records no artifact URL"},
		{"url with a newline", entry("wellknown+https://example.com", &Source{Digest: d, URL: "a\nb"}), "is not a URL"},
	} {
		err := tc.f.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v; want valid", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v; want an error saying %q", tc.name, err, tc.want)
		}
	}
}

func TestSourceRoundTrip(t *testing.T) {
	const d = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	f := &File{Inputs: d, Skills: []Skill{{Name: "x", Version: "1.0.0", Repository: "git+https://h/r.git//x",
		Source: &Source{Commit: strings.Repeat("b", 40), Ref: "refs/tags/v1.0.0"}, Manifest: d, Content: d, Requested: true}}}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := "    repository: git+https://h/r.git//x\n    source:\n      commit: " + strings.Repeat("b", 40) + "\n      ref: refs/tags/v1.0.0\n    manifest: "
	if !strings.Contains(string(data), want) {
		t.Errorf("Marshal =\n%s\nwant it to hold\n%s", data, want)
	}
	g, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if *g.Skills[0].Source != *f.Skills[0].Source {
		t.Errorf("round trip: %+v; want %+v", g.Skills[0].Source, f.Skills[0].Source)
	}
}
