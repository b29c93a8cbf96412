package index

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRemoteRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	r := OpenRemote(path, 0)
	if _, ok := r.Versions("reg/a"); ok {
		t.Fatal("empty cache answered Versions")
	}
	r.PutVersions("reg/a", []string{"1.0.0", "1.1.0"})
	r.PutRelease("reg/a", "1.1.0", "sha256:aa", []byte(`{"Manifest":"sha256:aa"}`))
	if v, ok := r.Versions("reg/a"); !ok || len(v) != 2 {
		t.Errorf("before Close: Versions = %v, %v", v, ok)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	r = OpenRemote(path, 0)
	defer r.Close()
	if v, ok := r.Versions("reg/a"); !ok || len(v) != 2 || v[1] != "1.1.0" {
		t.Errorf("Versions = %v, %v; want [1.0.0 1.1.0]", v, ok)
	}
	if d, ok := r.Release("reg/a", "1.1.0"); !ok || string(d) != `{"Manifest":"sha256:aa"}` {
		t.Errorf("Release = %s, %v", d, ok)
	}
	if _, ok := r.Release("reg/a", "9.9.9"); ok {
		t.Error("Release of an unknown tag answered")
	}
}

func TestRemoteSurvivesCorruptIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte("not a bbolt file"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := OpenRemote(path, 0)
	if _, ok := r.Versions("reg/a"); ok {
		t.Fatal("corrupt index answered")
	}
	r.PutVersions("reg/a", []string{"1.0.0"})
	if err := r.Close(); err != nil {
		t.Fatalf("Close over a corrupt index: %v", err)
	}
	r = OpenRemote(path, 0)
	defer r.Close()
	if _, ok := r.Versions("reg/a"); !ok {
		t.Error("index not rebuilt")
	}
}

func TestRemoteKeepsInstalledRecords(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	r := OpenRemote(path, 0)
	r.PutVersions("reg/a", []string{"1.0.0"})
	r.Close()
	r = OpenRemote(path, 0)
	r.PutVersions("reg/b", []string{"2.0.0"})
	r.Close()
	r = OpenRemote(path, 0)
	defer r.Close()
	for _, repo := range []string{"reg/a", "reg/b"} {
		if _, ok := r.Versions(repo); !ok {
			t.Errorf("%s lost by a later write", repo)
		}
	}
}
