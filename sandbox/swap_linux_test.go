package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRulePathSwappedForLink: a folder a rule grants that is replaced by
// a link between Build and Start (a handler of a concurrent run may
// write in the work folder) grants nothing: the rule does not follow the
// link to what it points at.
func TestRulePathSwappedForLink(t *testing.T) {
	if err := Available(); err != nil {
		t.Fatalf("this Linux machine cannot enforce the sandbox: %v", err)
	}
	work, secret := t.TempDir(), t.TempDir()
	key := filepath.Join(secret, "id_rsa")
	if err := os.WriteFile(key, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(work, "skill") // a project's skill, inside the work folder
	for _, d := range []string{filepath.Join(work, "data"), skill} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cat, runtime, err := ProgramPaths("/bin/cat")
	if err != nil {
		t.Fatal(err)
	}
	for _, perms := range []Permissions{
		{Declared: true, Read: []string{"data/**"}, AllowSubprocess: true},
		{Declared: true, Read: []string{"data/**"}},
	} {
		pol, err := Build(perms, Target{WorkDir: work, SkillDir: skill, TempDir: t.TempDir(), Program: cat, Runtime: runtime})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"data", "skill"} {
			p := filepath.Join(work, d)
			if err := os.Rename(p, p+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(secret, p); err != nil {
				t.Fatal(err)
			}
		}
		var out bytes.Buffer
		cmd := exec.Command(cat, key)
		cmd.Stdout = &out
		if r, err := Start(cmd, pol); err == nil {
			cmd.Wait()
			r.Done()
		}
		if out.Len() > 0 {
			t.Errorf("%+v: the handler read %q through a swapped-in link; want it denied", perms, out.String())
		}
		for _, d := range []string{"data", "skill"} {
			p := filepath.Join(work, d)
			os.Remove(p)
			if err := os.Rename(p+".old", p); err != nil {
				t.Fatal(err)
			}
		}
	}
}
