package command

import (
	"os"
	"path/filepath"
	"testing"
)

// The digest a stamp is kept under changes with everything an install
// depends on besides its targets, and with nothing else: not a secret in
// the environment, which never reaches the cache.
func TestWarmInputs(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	t.Setenv("SKILLPM_HOME", home)
	t.Setenv("SKILLPM_SYSTEM_CONFIG", filepath.Join(home, "system.yaml"))
	t.Chdir(dir)
	full := filepath.Join(t.TempDir(), "skillpm-full")
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(full, "#!/bin/sh\n")
	write(filepath.Join(dir, "skills.yaml"), "skills: {}\n")
	args := []string{"skillpm", "install"}
	digest := func() string {
		t.Helper()
		d, err := warmInputs(args, dir, full)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := digest()
	if digest() != base {
		t.Fatal("the digest of unchanged inputs changed")
	}
	t.Setenv("SKILLPM_KEY_PASSWORD", "hunter2")
	if digest() != base {
		t.Error("a secret in the environment changed the digest")
	}
	for _, c := range []struct {
		what   string
		change func()
	}{
		{"skills.yaml", func() { write(filepath.Join(dir, "skills.yaml"), "skills: {pdf: ^1}\n") }},
		{"skills.lock appearing", func() { write(filepath.Join(dir, "skills.lock"), "lockfile: 1\n") }},
		{"the user config", func() { write(filepath.Join(home, "config.yaml"), "plain_http: [localhost:5000]\n") }},
		{"the system config", func() { write(filepath.Join(home, "system.yaml"), "policy: p.yaml\n") }},
		{"SKILLPM_REGISTRY", func() { t.Setenv("SKILLPM_REGISTRY", "oci:./r") }},
		{"the command line", func() { args = []string{"skillpm", "install", "--frozen"} }},
		{"skillpm-full", func() { write(full, "#!/bin/sh\nexit 0\n") }},
	} {
		before := digest()
		c.change()
		if digest() == before {
			t.Errorf("%s changed, the digest did not", c.what)
		}
	}
}
