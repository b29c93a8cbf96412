package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchFixture locks n skills of a few files each.
func benchFixture(b *testing.B, n int) (*fixture, []string) {
	f := &fixture{project: b.TempDir(), src: &dirSource{byManifest: map[string]map[string]string{}}}
	f.targets = []string{filepath.Join(f.project, ".claude/skills"), filepath.Join(f.project, ".agents/skills")}
	var specs []string
	for i := range n {
		specs = append(specs, fmt.Sprintf("s%03d@1.0.%d", i, i))
	}
	return f, specs
}

// BenchmarkSyncCold installs 100 locked skills into two targets.
func BenchmarkSyncCold(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		f, specs := benchFixture(b, 100)
		l := f.lock(specs...)
		b.StartTimer()
		if _, err := Sync(context.Background(), l, Options{Targets: f.targets, Source: f.src}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSyncNoop re-syncs 100 installed skills: the warm path of
// 'skillpm install', which must touch no content.
func BenchmarkSyncNoop(b *testing.B) {
	f, specs := benchFixture(b, 100)
	l := f.lock(specs...)
	if _, err := Sync(context.Background(), l, Options{Targets: f.targets, Source: f.src}); err != nil {
		b.Fatal(err)
	}
	calls := f.src.calls.Load()
	for b.Loop() {
		res, err := Sync(context.Background(), l, Options{Targets: f.targets, Source: f.src})
		if err != nil {
			b.Fatal(err)
		}
		if res.Count(ActionUnchanged) != 200 || f.src.calls.Load() != calls {
			b.Fatalf("no-op sync changed things: %+v", res.Changes[:1])
		}
	}
}

// BenchmarkDiscover1000 lists 1,000 installed skills.
func BenchmarkDiscover1000(b *testing.B) {
	project := b.TempDir()
	for i := range 1000 {
		d := filepath.Join(project, ".claude/skills", fmt.Sprintf("skill-%04d", i))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "SKILL.md"), []byte("---\nname: x\ndescription: y\n---\n"), 0o644)
	}
	dirs := SearchDirs(project, "")
	for b.Loop() {
		if got := len(Effective(Discover(dirs))); got != 1000 {
			b.Fatalf("found %d skills; want 1000", got)
		}
	}
}

// BenchmarkUpToDate checks 100 installed skills in two targets, each of
// four files in three folders as bench/compare publishes them: the check
// a warm 'skillpm install' answers from (install.UpToDate).
func BenchmarkUpToDate(b *testing.B) {
	f, specs := benchFixture(b, 100)
	l := f.lock(specs...)
	for _, s := range l.Skills {
		f.src.byManifest[s.Manifest] = map[string]string{
			"SKILL.md":            "---\nname: " + s.Name + "\ndescription: d\n---\nbody\n",
			"references/guide.md": "guide",
			"scripts/run.py":      "print('step')\n",
			"assets/model.bin":    "bin",
		}
	}
	if _, err := Sync(context.Background(), l, Options{Targets: f.targets, Source: f.src}); err != nil {
		b.Fatal(err)
	}
	// A warm check comes well after the install: past the margin a
	// folder memo needs (folders.go).
	time.Sleep(folderMargin)
	opts := Options{Targets: f.targets, RecordMemo: b.TempDir()}
	for b.Loop() {
		if ok, err := UpToDate(l, opts); !ok || err != nil {
			b.Fatalf("UpToDate = %v, %v; want true", ok, err)
		}
	}
}
