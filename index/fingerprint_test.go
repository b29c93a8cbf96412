package index

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpm/skillpm/skill"
)

// A SKILL.md swapped for another of the same size with the old mtime put
// back (an archive extracted with its recorded times, as an install does)
// must be parsed again: the fingerprint's inode and ctime tell it apart.
func TestFingerprintSeesSameSizeSameMtimeReplacement(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("fingerprints carry inode and ctime on linux and darwin only")
	}
	root := t.TempDir()
	db := filepath.Join(t.TempDir(), FileName)
	dir := writeSkill(t, root, "alpha", "first")
	md := filepath.Join(dir, skill.FileName)
	var parsed atomic.Int32
	opts := Options{Load: counting(&parsed)}
	waitSettled(t, dir)
	if res, st := Installed(context.Background(), db, []string{dir}, opts); res[0].Err != nil || !st.Wrote {
		t.Fatalf("cold: %v, %+v", res[0].Err, st)
	}
	old, err := os.Stat(md)
	if err != nil {
		t.Fatal(err)
	}
	// Same length ("first" -> "FIRST"), written beside it and renamed
	// over it, the mtime set back.
	data, err := os.ReadFile(filepath.Join(writeSkill(t, t.TempDir(), "alpha", "FIRST"), skill.FileName))
	if err != nil || int64(len(data)) != old.Size() {
		t.Fatalf("test bug: new SKILL.md is %d bytes, old %d (%v)", len(data), old.Size(), err)
	}
	tmp := filepath.Join(root, "SKILL.md.new")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, old.ModTime(), old.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, md); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.Stat(md); now.Size() != old.Size() || !now.ModTime().Equal(old.ModTime()) {
		t.Fatalf("test bug: size/mtime differ after the swap")
	}
	parsed.Store(0)
	res, st := Installed(context.Background(), db, []string{dir}, opts)
	if parsed.Load() != 1 || st.Hits != 0 {
		t.Errorf("after the swap: parsed %d, hits %d; want 1 parse, 0 hits", parsed.Load(), st.Hits)
	}
	if got := res[0].Skill.Description; got != "FIRST" {
		t.Errorf("description = %q; want FIRST (stale metadata served)", got)
	}
}

// A stat of SKILL.md taken by the caller (discovery) is used, not taken
// again, and gives the same fingerprint as FingerprintOf.
func TestInstalledUsesCallersStat(t *testing.T) {
	root := t.TempDir()
	db := filepath.Join(t.TempDir(), FileName)
	dir := writeSkill(t, root, "alpha", "first")
	fi, err := os.Stat(filepath.Join(dir, skill.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, skill.ToolsFileName), []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	fps, errs := fingerprints([]string{dir}, []fs.FileInfo{fi})
	fp, err := fps[0], errs[0]
	if err != nil {
		t.Fatal(err)
	}
	if want, err := FingerprintOf(dir); err != nil || fp != want {
		t.Fatalf("fingerprint with the caller's stat = %+v; FingerprintOf = %+v (%v)", fp, want, err)
	}
	// The stamps taken relative to the parent folder are os.Stat's.
	md, _ := stampOf(fi)
	tj, err := stamp(os.Stat(filepath.Join(dir, skill.ToolsFileName)))
	if err != nil || fp.SkillMD != md || fp.ToolsJSON != tj {
		t.Fatalf("fingerprint = %+v; os.Stat's stamps are %+v and %+v (%v)", fp, md, tj, err)
	}
	var parsed atomic.Int32
	opts := Options{Load: counting(&parsed), SkillMD: []fs.FileInfo{fi}}
	waitSettled(t, dir)
	Installed(context.Background(), db, []string{dir}, opts)
	parsed.Store(0)
	if res, st := Installed(context.Background(), db, []string{dir}, opts); st.Hits != 1 || parsed.Load() != 0 || res[0].Skill.Description != "first" {
		t.Errorf("warm with the caller's stat: hits %d, parsed %d, %q", st.Hits, parsed.Load(), res[0].Skill.Description)
	}
}

// fingerprints, which stats folders of one parent relative to it, gives
// what FingerprintOf gives for each, errors included, across parents,
// with or without the caller's stats of SKILL.md, also where the
// folders are enough to be statted on several goroutines.
func TestFingerprintsAreFingerprintOf(t *testing.T) {
	var dirs []string
	for _, root := range []string{t.TempDir(), t.TempDir()} {
		for i := range 150 {
			dir := writeSkill(t, root, fmt.Sprintf("s%03d", i), "d")
			if i%3 == 0 {
				if err := os.WriteFile(filepath.Join(dir, skill.ToolsFileName), []byte("[]"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			dirs = append(dirs, dir)
		}
		dirs = append(dirs, filepath.Join(root, "gone"))
	}
	// Every other SKILL.md stat'ed by the caller.
	mds := make([]fs.FileInfo, len(dirs))
	for i, dir := range dirs {
		if i%2 == 0 {
			mds[i], _ = os.Stat(filepath.Join(dir, skill.FileName))
		}
	}
	given := slices.Clone(mds)
	for _, mds := range [][]fs.FileInfo{nil, mds} {
		fps, errs := fingerprints(dirs, mds)
		for i, dir := range dirs {
			want, err := FingerprintOf(dir)
			if fps[i] != want || (err == nil) != (errs[i] == nil) || (err != nil && err.Error() != errs[i].Error()) {
				t.Errorf("%s: fingerprints = %+v, %v; FingerprintOf = %+v, %v", dir, fps[i], errs[i], want, err)
			}
		}
	}
	if !slices.Equal(mds, given) {
		t.Error("fingerprints changed the caller's stats")
	}
}

// A stamp settles after the granularity its time suggests: a whole
// second may come from a file system that keeps no finer time.
func TestFingerprintSettled(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 10, 0, time.UTC).UnixNano()
	at := func(d time.Duration) Stamp { return Stamp{Size: 1, ModTime: 1, Ino: 1, Change: now - int64(d)} }
	for _, c := range []struct {
		name string
		fp   Fingerprint
		want bool
	}{
		{"fine, a moment ago", Fingerprint{SkillMD: at(10 * time.Millisecond), ToolsJSON: Stamp{Size: -1}}, false},
		{"fine, settled", Fingerprint{SkillMD: at(300 * time.Millisecond), ToolsJSON: Stamp{Size: -1}}, true},
		{"tools.json a moment ago", Fingerprint{SkillMD: at(time.Hour + time.Millisecond), ToolsJSON: at(time.Millisecond)}, false},
		{"whole second, a second ago", Fingerprint{SkillMD: at(time.Second), ToolsJSON: Stamp{Size: -1}}, false},
		{"whole second, long ago", Fingerprint{SkillMD: at(time.Hour), ToolsJSON: Stamp{Size: -1}}, true},
		{"no ctime, folder just changed", Fingerprint{SkillMD: Stamp{Size: 1, ModTime: now - int64(time.Hour) + 7}, ToolsJSON: Stamp{Size: -1}, Dir: now - 7}, false},
		{"no ctime, settled", Fingerprint{SkillMD: Stamp{Size: 1, ModTime: now - int64(time.Hour) + 7}, ToolsJSON: Stamp{Size: -1}, Dir: now - int64(time.Hour) + 7}, true},
	} {
		if got := c.fp.settled(now); got != c.want {
			t.Errorf("%s: settled = %v; want %v", c.name, got, c.want)
		}
	}
}

// A folder named with a trailing separator is the folder, not a folder
// of the same name inside it, and a relative path is the folder in the
// working folder: its fingerprint is FingerprintOf's.
func TestFingerprintsUncleanPath(t *testing.T) {
	root := t.TempDir()
	a := writeSkill(t, root, "alpha", "outer")
	writeSkill(t, a, "alpha", "inner") // what alpha/ + alpha/SKILL.md would find
	want, err := FingerprintOf(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{a + string(filepath.Separator), a + string(filepath.Separator) + "."} {
		fps, errs := fingerprints([]string{dir}, nil)
		if errs[0] != nil || fps[0] != want {
			t.Errorf("fingerprints(%q) = %+v, %v; want %+v", dir, fps[0], errs[0], want)
		}
	}
	// Relative to the working folder, which is then their parent.
	t.Chdir(root)
	sep := string(filepath.Separator)
	for _, dir := range []string{"alpha", "." + sep + "alpha", "alpha" + sep, "alpha" + sep + ".." + sep + "alpha"} {
		fps, errs := fingerprints([]string{dir}, nil)
		if errs[0] != nil || fps[0] != want {
			t.Errorf("fingerprints(%q) in %s = %+v, %v; want %+v", dir, root, fps[0], errs[0], want)
		}
	}
}
