package command

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/skillpm/skillpm/internal/memo"
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
		d, _, err := warmInputs(args, dir, full)
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

// A stamp reads back as it was written; a stamp cut short, with bytes
// after it, with a count past its end, of another format (an older JSON
// stamp) or that is no file is no stamp.
func TestWarmStamp(t *testing.T) {
	dir := t.TempDir()
	want := warmStamp{Inputs: "abc", Targets: []string{"/p/.claude/skills", "/p/.agents/skills"}, Owner: "project", Root: "/p",
		Allow: []string{"/shared"}, RecordMemo: "/c/records", LockMemo: "/c/locks", Stdout: "1 skill locked\n", Stderr: ""}
	b := want.encode()
	path := filepath.Join(dir, "stamp")
	write := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(b)
	if got, ok := readWarmStamp(path); !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("read %+v, %v; want %+v", got, ok, want)
	}
	// A count of targets far past the bytes left.
	huge := memo.Encoder{B: []byte(warmVersion + "\n")}
	huge.Str("abc")
	huge.Num(1 << 30)
	huge.B = append(huge.B, make([]byte, 64)...)
	for _, bad := range [][]byte{b[:len(b)-1], append(slices.Clone(b), 0), b[len(warmVersion)+1:], []byte(`{"inputs":"abc"}`), huge.B} {
		write(bad)
		if got, ok := readWarmStamp(path); ok {
			t.Errorf("%q read as a stamp: %+v", bad, got)
		}
	}
	if _, ok := readWarmStamp(filepath.Join(dir, "missing")); ok {
		t.Error("a missing stamp read as one")
	}
}
