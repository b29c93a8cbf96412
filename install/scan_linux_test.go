package install

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/memo"
	"golang.org/x/sys/unix"
)

// namesOf lists dir, sorted, with readNames.
func namesOf(t *testing.T, dir string) []string {
	t.Helper()
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	var buf [4096]byte
	names, ok := readNames(fd, buf[:])
	if !ok {
		t.Fatalf("%s: not listed", dir)
	}
	slices.Sort(names)
	return names
}

// namesAre tells a folder of any size holding exactly the names from
// one missing a name or holding another, in one getdents call or many.
func TestNamesAre(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 3, 40, 400} {
		sub := filepath.Join(dir, fmt.Sprint(n))
		os.Mkdir(sub, 0o755)
		for i := range n {
			os.WriteFile(filepath.Join(sub, fmt.Sprintf("%s-%d", strings.Repeat("x", i%200), i)), nil, 0o644)
		}
		names := namesOf(t, sub)
		if len(names) != n {
			t.Fatalf("%d entries: readNames gave %d", n, len(names))
		}
		type check struct {
			what  string
			names []string
			want  bool
		}
		cases := []check{
			{"the names", names, true},
			{"another name too", slices.Sorted(slices.Values(append(slices.Clone(names), "zz-not-there"))), false},
		}
		if n > 0 {
			cases = append(cases, check{"a name short", names[1:], false})
		}
		for _, c := range cases {
			for _, fills := range []bool{false, true} {
				fd, err := syscall.Open(sub, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
				if err != nil {
					t.Fatal(err)
				}
				var buf [4096]byte
				if got := namesAre(fd, buf[:], c.names, fills); got != c.want {
					t.Errorf("%d entries, %s (fills %v): namesAre = %v, want %v", n, c.what, fills, got, c.want)
				}
				syscall.Close(fd)
			}
		}
	}
	d := openScanDir(dir)
	defer d.close()
	if !d.fillsDirents() {
		t.Logf("%s: not a file system known to fill getdents buffers", dir)
	}
}

// A folder memo spares listing a folder only while nothing could have
// changed its names: after every kind of edit, the check through the
// memo (statKnown) says no and prescan finds the folder changed, and
// untouched folders are still found unchanged through the memo.
func TestFolderMemoSeesEdits(t *testing.T) {
	target, memoDir := t.TempDir(), t.TempDir()
	past := time.Now().Add(-48 * time.Hour)
	edits := map[string]func(d string) error{
		"file added at the top": func(d string) error { return os.WriteFile(filepath.Join(d, "new.md"), nil, 0o644) },
		"file added at the top, folder mtime set back": func(d string) error {
			fi, err := os.Stat(d)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(d, "new.md"), nil, 0o644); err != nil {
				return err
			}
			return os.Chtimes(d, fi.ModTime(), fi.ModTime())
		},
		"empty folder added at the top": func(d string) error { return os.Mkdir(filepath.Join(d, "empty"), 0o755) },
		"file removed at the top":       func(d string) error { return os.Remove(filepath.Join(d, "a.txt")) },
		"file renamed at the top": func(d string) error {
			return os.Rename(filepath.Join(d, "a.txt"), filepath.Join(d, "b.txt"))
		},
		"file added in a folder": func(d string) error {
			return os.WriteFile(filepath.Join(d, "scripts", "new.sh"), nil, 0o644)
		},
		"edited in place, size changed, mtime set back": func(d string) error {
			p := filepath.Join(d, "scripts", "run.sh")
			if err := os.WriteFile(p, []byte("#!/bin/bash"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, past, past)
		},
		// Only the ctime in the fingerprint tells this one.
		"edited in place, same size, its own mtime put back": func(d string) error {
			p := filepath.Join(d, "scripts", "run.sh")
			if err := os.WriteFile(p, []byte("#!/bin/ss\n"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, past, past)
		},
		"mode changed": func(d string) error { return os.Chmod(filepath.Join(d, "a.txt"), 0o755) },
		"skill folder replaced by a copy with another file, times kept": func(d string) error {
			fi, err := os.Stat(d)
			if err != nil {
				return err
			}
			if err := os.Rename(d, d+".old"); err != nil {
				return err
			}
			if err := os.CopyFS(d, os.DirFS(d+".old")); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(d, "new.md"), nil, 0o644); err != nil {
				return err
			}
			filepath.Walk(d+".old", func(p string, fi os.FileInfo, err error) error {
				if err == nil {
					rel, _ := filepath.Rel(d+".old", p)
					os.Chtimes(filepath.Join(d, rel), fi.ModTime(), fi.ModTime())
				}
				return nil
			})
			return os.Chtimes(d, fi.ModTime(), fi.ModTime())
		},
		"skill folder replaced by a link": func(d string) error {
			if err := os.Rename(d, d+".old"); err != nil {
				return err
			}
			return os.Symlink(d+".old", d)
		},
	}
	rec := newRecord()
	add := func(name string) {
		dir := filepath.Join(target, name)
		for rel, data := range map[string]string{"SKILL.md": "---\nname: x\n---\n", "a.txt": "a", "scripts/run.sh": "#!/bin/sh\n"} {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(p, past, past)
		}
		tr, err := HashTree(dir)
		if err != nil {
			t.Fatal(err)
		}
		rec.Skills[name] = &RecordSkill{Version: "1.0.0", Tree: tr.Digest, Stat: tr.Stat, Files: tr.Files}
	}
	folder := func(edit string) string { return strings.NewReplacer(" ", "-", ",", "").Replace(edit) }
	for edit := range edits {
		add(folder(edit))
	}
	add("untouched")
	d := openScanDir(target)
	defer d.close()
	if !d.fillsDirents() {
		t.Skipf("%s: folder memos are kept only on file systems known to fill getdents buffers", target)
	}
	// Only a folder whose ctime is older than the margin is remembered.
	prescan(target, rec, "project", nil, memoDir)
	if m := readFolderMemo(memoDir, target); len(m) != 0 {
		t.Fatalf("folders just made: %d remembered, want none", len(m))
	}
	time.Sleep(folderMargin + 100*time.Millisecond)
	prescan(target, rec, "project", nil, memoDir)
	known := readFolderMemo(memoDir, target)
	if len(known) != len(rec.Skills) {
		t.Fatalf("%d folders remembered, want %d", len(known), len(rec.Skills))
	}
	var s statScratch
	for name, r := range rec.Skills {
		if !s.entries(r.Files) || !d.statKnown(&s, name, r.Stat, known[name].Seen) {
			t.Errorf("%s: untouched, but not found unchanged through the memo", name)
		}
	}
	for what, edit := range edits {
		if err := edit(filepath.Join(target, folder(what))); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	for what := range edits {
		r := rec.Skills[folder(what)]
		if s.entries(r.Files) && d.statKnown(&s, folder(what), r.Stat, known[folder(what)].Seen) {
			t.Errorf("%s: found unchanged through the memo", what)
		}
	}
	for _, r := range rec.Skills {
		r.scan = scanUnknown
	}
	prescan(target, rec, "project", nil, memoDir)
	for name, r := range rec.Skills {
		if got, want := r.scan != scanUnknown, name == "untouched"; got != want {
			t.Errorf("%s: found unchanged %v, want %v", name, got, want)
		}
	}
}

// A folder on another device than its target (a mount point) is not
// remembered: the target's file system is the one checked to keep
// ctimes (fillsDirents), not the one mounted there, which may not (a
// FUSE or network file system), and an entry added at its top would go
// unseen.
func TestFolderMemoSameDevice(t *testing.T) {
	target := t.TempDir()
	dir := filepath.Join(target, "pdf")
	os.Mkdir(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: pdf\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := HashTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := openScanDir(target)
	defer d.close()
	later := time.Now().Add(time.Hour).UnixNano() // as if checked an hour on
	var s statScratch
	if ok, seen := d.statListed(&s, "pdf", tr.Files, tr.Stat, true, "", later); !ok || seen == "" {
		t.Fatalf("same device: ok %v, seen %q; want the folder remembered", ok, seen)
	}
	d.dev++ // as if pdf were a mount point
	if ok, seen := d.statListed(&s, "pdf", tr.Files, tr.Stat, true, "", later); !ok || seen != "" {
		t.Errorf("another device: ok %v, seen %q; want unchanged, not remembered", ok, seen)
	}
}

// lstatAt is unix.Fstatat without following a link, for a path given as
// NUL-terminated bytes; a path with no NUL at its end, or one inside it,
// is refused rather than cut short.
func TestLstatAt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	for _, name := range []string{"a.txt", "link", "."} {
		var got, want unix.Stat_t
		if err := lstatAt(fd, append([]byte(name), 0), &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := unix.Fstatat(fd, name, &want, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: %+v; want %+v", name, got, want)
		}
	}
	var st unix.Stat_t
	if err := lstatAt(fd, []byte("missing\x00"), &st); err != unix.ENOENT {
		t.Errorf("missing: %v; want ENOENT", err)
	}
	for _, p := range []string{"", "a.txt", "a.txt\x00x\x00"} {
		if err := lstatAt(fd, []byte(p), &st); err != unix.EINVAL {
			t.Errorf("%q: %v; want EINVAL", p, err)
		}
	}
}

// A warm check that finds what the folder memo holds leaves it as it is;
// one that finds less writes the memo again.
func TestFolderMemoWrittenOnChange(t *testing.T) {
	target, memoDir := t.TempDir(), t.TempDir()
	rec := newRecord()
	for _, name := range []string{"pdf", "docx"} {
		dir := filepath.Join(target, name)
		os.Mkdir(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := HashTree(dir)
		if err != nil {
			t.Fatal(err)
		}
		rec.Skills[name] = &RecordSkill{Version: "1.0.0", Tree: tr.Digest, Stat: tr.Stat, Files: tr.Files}
	}
	d := openScanDir(target)
	fills := d.fillsDirents()
	d.close()
	if !fills {
		t.Skipf("%s: folder memos are kept only on file systems known to fill getdents buffers", target)
	}
	time.Sleep(folderMargin + 100*time.Millisecond)
	key := memo.Key(memoDir, folderMemoKind, []byte(target))
	inode := func() uint64 {
		t.Helper()
		var st unix.Stat_t
		if err := unix.Stat(key, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ino
	}
	prescan(target, rec, "project", nil, memoDir)
	if n := len(readFolderMemo(memoDir, target)); n != 2 {
		t.Fatalf("%d folders remembered, want 2", n)
	}
	first := inode()
	prescan(target, rec, "project", nil, memoDir)
	if inode() != first {
		t.Error("a check that found what the memo holds wrote it again")
	}
	if err := os.WriteFile(filepath.Join(target, "docx", "SKILL.md"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	prescan(target, rec, "project", nil, memoDir)
	if m := readFolderMemo(memoDir, target); len(m) != 1 || m["pdf"].Seen == "" {
		t.Errorf("after an edit: memo %v; want pdf alone", m)
	}
}
