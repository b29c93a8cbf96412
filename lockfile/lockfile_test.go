package lockfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sample() *File {
	return &File{Inputs: dg("in"), Skills: []Skill{
		{Name: "zeta", Version: "1.0.0", Repository: "oci:/r/zeta", Manifest: dg("2"), Content: dg("c2"), Dependencies: []string{"alpha", "b", "b"}},
		{Name: "alpha", Version: "2.1.0", Repository: "ghcr.io/acme/skills/alpha", Manifest: dg("1"), Content: dg("c1"), Requested: true},
		{Name: "b", Version: "1.0.0", Repository: "ghcr.io/acme/skills/b", Manifest: dg("3"), Content: dg("c3")},
	}}
}

// dg is a well-formed sha256 digest made from s.
func dg(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func TestMarshalIsCanonical(t *testing.T) {
	a, err := sample().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	f := sample()
	f.Skills[0], f.Skills[1] = f.Skills[1], f.Skills[0]
	f.Skills[1].Dependencies = []string{"alpha", "b"}
	b, _ := f.Marshal()
	if string(a) != string(b) {
		t.Errorf("same lock, different bytes:\n%s\n---\n%s", a, b)
	}
	if i, j := strings.Index(string(a), "name: alpha"), strings.Index(string(a), "name: zeta"); i < 0 || j < i {
		t.Errorf("entries not sorted by name:\n%s", a)
	}
	if strings.Count(string(a), "- b\n") != 1 {
		t.Errorf("dependencies not deduplicated:\n%s", a)
	}
}

func TestRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	if err := Write(p, sample()); err != nil {
		t.Fatal(err)
	}
	f, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Find("zeta"); got == nil || got.Content != dg("c2") || len(got.Dependencies) != 2 {
		t.Errorf("Find(zeta) = %+v", got)
	}
	if f.Find("nope") != nil {
		t.Error("Find(nope) found something")
	}
	again, _ := f.Marshal()
	orig, _ := os.ReadFile(p)
	if string(again) != string(orig) {
		t.Errorf("read+write changed bytes")
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(filepath.Join(dir, FileName)); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing lock: err = %v; want ErrNotFound", err)
	}
	m := dg("m")
	for name, body := range map[string]string{
		"garbage":      "{{{",
		"version":      "lockVersion: 9\nskills: []\n",
		"incomplete":   "lockVersion: 1\nskills:\n- name: a\n",
		"unsorted":     "lockVersion: 1\nskills:\n- {name: b, version: 1.0.0, repository: r, manifest: " + m + "}\n- {name: a, version: 1.0.0, repository: r, manifest: " + m + "}\n",
		"duplicate":    "lockVersion: 1\nskills:\n- {name: a, version: 1.0.0, repository: r, manifest: " + m + "}\n- {name: a, version: 1.0.0, repository: r, manifest: " + m + "}\n",
		"unknown":      "lockVersion: 1\nsurprise: 1\n",
		"escape":       "lockVersion: 1\nskills:\n- {name: ../../evil, version: 1.0.0, repository: r, manifest: " + m + "}\n",
		"dep escape":   "lockVersion: 1\nskills:\n- {name: a, version: 1.0.0, repository: r, manifest: " + m + ", dependencies: [../b]}\n",
		"dep missing":  "lockVersion: 1\nskills:\n- {name: a, version: 1.0.0, repository: r, manifest: " + m + ", dependencies: [b]}\n",
		"short digest": "lockVersion: 1\nskills:\n- {name: a, version: 1.0.0, repository: r, manifest: 'sha256:1'}\n",
		"md5 digest":   "lockVersion: 1\nskills:\n- {name: a, version: 1.0.0, repository: r, manifest: 'md5:d41d8cd98f00b204e9800998ecf8427e'}\n",
		"content":      "lockVersion: 1\nskills:\n- {name: a, version: 1.0.0, repository: r, manifest: " + m + ", content: 'sha256:../x'}\n",
		"semver":       "lockVersion: 1\nskills:\n- {name: a, version: latest, repository: r, manifest: " + m + "}\n",
		"inputs":       "lockVersion: 1\ninputs: whatever\nskills: []\n",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		_, err := Read(p)
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v; want an error naming %s", name, err, p)
		}
		if name != "version" && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v; want ErrInvalid", name, err)
		}
	}
}

// The committed example must stay a lock this package reads and writes
// byte for byte.
func TestExampleLock(t *testing.T) {
	data, err := os.ReadFile("../skills.lock.example")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(data)
	if err != nil {
		t.Fatalf("skills.lock.example: %v", err)
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(data) {
		t.Errorf("skills.lock.example is not canonical; regenerate it from scripts/demo's lock")
	}
}
