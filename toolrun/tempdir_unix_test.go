//go:build unix

package toolrun

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startHolder starts a process holding a run folder under tmp.
func startHolder(t *testing.T, tmp string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), holdRunFolderEnv+"=1", "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	dir := strings.TrimSpace(line)
	if err != nil || !filepath.IsAbs(dir) {
		t.Fatalf("holder said %q, %v", line, err)
	}
	return cmd, dir
}

// age makes paths look created long ago.
func age(t *testing.T, paths ...string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, p := range paths {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSweepRunFolders: the run folders of a skillpm killed with SIGKILL
// are removed by the next sweep, proven abandoned by the lock their owner
// held; those of a running skillpm, young ones, links and other users'
// folders are left alone.
func TestSweepRunFolders(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	killed, dead := startHolder(t, tmp)
	_, live := startHolder(t, tmp)
	root := filepath.Dir(dead)
	if got, err := userTempRoot(); err != nil || got != root {
		t.Fatalf("userTempRoot() = %q, %v; want %q", got, err, root)
	}
	if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed.Wait()
	if err := os.WriteFile(filepath.Join(dead, runTmp, "left"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}

	// Killed too recently to tell from a run still starting: spared.
	if n := sweepRunFolders(root, time.Now()); n != 0 {
		t.Fatalf("sweep removed %d folders; want the young ones spared", n)
	}

	// A folder without a lock (its owner died before locking), a link
	// to a folder outside, and a folder of another user.
	nolock := filepath.Join(root, runPrefix+"nolock")
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	link := filepath.Join(root, runPrefix+"link")
	if err := os.Mkdir(nolock, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	age(t, dead, live, nolock, outside)
	foreign := ""
	if os.Getuid() == 0 {
		foreign = filepath.Join(root, runPrefix+"foreign")
		if err := os.Mkdir(foreign, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(foreign, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		age(t, foreign)
	}

	if n := sweepRunFolders(root, time.Now()); n != 2 {
		t.Errorf("sweep removed %d folders; want 2 (the killed run's and the lockless one)", n)
	}
	for _, gone := range []string{dead, nolock} {
		if _, err := os.Lstat(gone); !os.IsNotExist(err) {
			t.Errorf("%s: %v; want it removed", gone, err)
		}
	}
	for _, kept := range []string{live, filepath.Join(live, runLock), link, victim, foreign} {
		if kept == "" {
			continue
		}
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("%s: %v; want it kept", kept, err)
		}
	}
}

// TestUserTempRootNotHijacked: a per-user folder that is a link, or that
// others may write to, is not used; runs then fall back to a plain temp
// folder.
func TestUserTempRootNotHijacked(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	root := filepath.Join(tmp, fmt.Sprintf("skillpm-%d", os.Getuid()))
	if err := os.Symlink(t.TempDir(), root); err != nil {
		t.Fatal(err)
	}
	if _, err := userTempRoot(); err == nil {
		t.Fatal("userTempRoot accepted a link")
	}
	r, err := newRunFolder()
	if err != nil {
		t.Fatal(err)
	}
	defer r.remove()
	if filepath.Dir(r.dir) != tmp || !strings.HasPrefix(filepath.Base(r.dir), "skillpm-run-") {
		t.Fatalf("run folder %s; want a plain one in %s", r.dir, tmp)
	}
	os.Remove(root)
	if err := os.Mkdir(root, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := userTempRoot(); err == nil {
		t.Fatal("userTempRoot accepted a folder anyone may write to")
	}
}

// TestRemoveTreeLockedFolders: a run folder the handler left with folders
// it may not list or empty (mode 000) is removed all the same. Root
// ignores modes, so under root the folder and the removal belong to
// another user (nobody): a copy of this test binary removes it as that
// user (removeTreeAsEnv, see TestMain).
func TestRemoveTreeLockedFolders(t *testing.T) {
	base, err := os.MkdirTemp("", "skillpm-removetree-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil { // nobody must reach it
		t.Fatal(err)
	}
	dir := filepath.Join(base, "run-x")
	inner := filepath.Join(dir, "tmp", "locked", "inner")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inner, "f"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var remove func() error
	if os.Getuid() != 0 {
		remove = func() error { return removeTree(dir) }
	} else {
		const nobody = 65534
		remove = removeAs(t, base, dir, nobody)
		if err := filepath.Walk(base, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, nobody, nobody)
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{inner, filepath.Dir(inner)} {
		if err := os.Chmod(d, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("%s: %v; want it removed", dir, err)
	}
}

// removeAs returns a func that runs removeTree(dir) in a copy of this
// test binary (put in base) as user uid.
func removeAs(t *testing.T, base, dir string, uid uint32) func() error {
	t.Helper()
	bin := filepath.Join(base, "toolrun.test")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	return func() error {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), removeTreeAsEnv+"="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("removeTree as uid %d: %v: %s", uid, err, out)
		}
		return nil
	}
}
