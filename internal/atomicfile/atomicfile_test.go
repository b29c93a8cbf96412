package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "skills.lock")
	for _, data := range []string{"one\n", "two, longer\n"} {
		if err := WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != data {
			t.Errorf("read %q, %v; want %q", got, err, data)
		}
	}
	if fi, err := os.Stat(p); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, %v; want 0644", fi.Mode(), err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("folder holds %d entries; want only the file (no temporary left)", len(ents))
	}
}

func TestWriteFileInReplacesLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	if err := os.Symlink(victim, filepath.Join(dir, ".record.json")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := WriteFileIn(root, ".record.json", []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep" {
		t.Errorf("the link's target was written: %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(dir, ".record.json")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the link was not replaced by a file: %v, %v", fi, err)
	}
}

func TestTempPrefix(t *testing.T) {
	for name, want := range map[string]string{"skills.lock": ".skills.lock.tmp-", ".skillpm-install.json": ".skillpm-install.json.tmp-"} {
		if got := TempPrefix(name); got != want || !strings.HasPrefix(got, ".") {
			t.Errorf("TempPrefix(%q) = %q; want %q", name, got, want)
		}
	}
}
