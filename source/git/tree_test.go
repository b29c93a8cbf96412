package git

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// counting wraps the real git in a script that logs each subcommand, so
// a test can count the processes an operation spawned.
func counting(t *testing.T, c *Client) (count func(sub string) int) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	script := "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in -c) skip=1;; *) if [ -n \"$skip\" ]; then skip=; else echo \"$a\" >>" + log + "; break; fi;; esac; done\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c.Git = filepath.Join(dir, "git")
	return func(sub string) int {
		b, _ := os.ReadFile(log)
		n := 0
		for _, l := range strings.Split(string(b), "\n") {
			if l == sub {
				n++
			}
		}
		return n
	}
}

// snapshot lists a folder's files with their modes and contents (link
// targets for links).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			v += " -> " + l
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExportWholeTree: the folders of a small commit are cut from one
// 'git archive' and come out exactly as a per-folder archive writes
// them (modes, links, nested folders); a commit holding a
// .gitattributes is exported per folder, as its export-ignore applies
// only inside the archived folder.
func TestExportWholeTree(t *testing.T) {
	for _, attrs := range []bool{false, true} {
		work := filepath.Join(t.TempDir(), "work")
		os.Mkdir(work, 0o755)
		gitRun(t, work, "init", "--quiet", "-b", "main")
		for _, n := range []string{"a", "b", "c"} {
			writeFile(t, filepath.Join(work, "skills", n, "SKILL.md"), skillMD(n, "1.0.0"))
			writeFile(t, filepath.Join(work, "skills", n, "scripts/deep/run.sh"), "#!/bin/sh\necho "+n+"\n")
			os.Chmod(filepath.Join(work, "skills", n, "scripts/deep/run.sh"), 0o755)
			writeFile(t, filepath.Join(work, "skills", n, "notes.txt"), "notes\n")
			os.Symlink("scripts/deep/run.sh", filepath.Join(work, "skills", n, "run"))
		}
		if attrs {
			writeFile(t, filepath.Join(work, ".gitattributes"), "notes.txt export-ignore\n")
		}
		gitRun(t, work, "add", "-A")
		gitRun(t, work, "commit", "--quiet", "-m", "skills")
		commit := gitRun(t, work, "rev-parse", "HEAD")
		url := "file://" + work
		ctx := context.Background()

		whole := newClient(t)
		count := counting(t, whole)
		if err := whole.Fetch(ctx, url, commit); err != nil {
			t.Fatal(err)
		}
		// A second client over the same cache finds the commit cached,
		// so it knows nothing of the whole tree: one archive per folder.
		perFolder := &Client{CacheDir: whole.CacheDir, Env: whole.Env}
		for _, n := range []string{"a", "b", "c"} {
			d1, d2 := filepath.Join(t.TempDir(), n), filepath.Join(t.TempDir(), n)
			if err := whole.Export(ctx, url, commit, "skills/"+n, d1); err != nil {
				t.Fatal(err)
			}
			if err := perFolder.Export(ctx, url, commit, "skills/"+n, d2); err != nil {
				t.Fatal(err)
			}
			got, want := snapshot(t, d1), snapshot(t, d2)
			if len(got) != len(want) || len(want) < 6 {
				t.Fatalf("attrs=%v: whole-tree export of %s = %v; want %v", attrs, n, got, want)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("attrs=%v: whole-tree export of %s: %s = %q; want %q", attrs, n, k, got[k], v)
				}
			}
		}
		wantArchives := 1
		if attrs {
			wantArchives = 3
		}
		if got := count("archive"); got != wantArchives {
			t.Errorf("attrs=%v: exporting 3 folders ran git archive %d times; want %d", attrs, got, wantArchives)
		}
		err := whole.Export(ctx, url, commit, "skills/none", filepath.Join(t.TempDir(), "none"))
		if err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("attrs=%v: Export of a missing folder = %v; want not found", attrs, err)
		}
	}
}
