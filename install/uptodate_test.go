package install

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// UpToDate says yes exactly when a Sync would change nothing, and never
// writes: every way a target can drift from the lock makes it say no.
func TestUpToDate(t *testing.T) {
	f := newFixture(t)
	opts := Options{Targets: f.targets}
	l := f.lock("alpha@1.0.0", "beta@1.0.0")
	if ok, err := UpToDate(l, opts); ok || err != nil {
		t.Fatalf("before any install: UpToDate = %v, %v; want false", ok, err)
	}
	f.mustSync(l)
	before := f.snapshot()
	if ok, err := UpToDate(l, opts); !ok || err != nil {
		t.Fatalf("after install: UpToDate = %v, %v; want true", ok, err)
	}
	if f.snapshot() != before {
		t.Fatal("UpToDate wrote to a target")
	}
	if ok, _ := UpToDate(f.lock("alpha@1.0.0", "beta@2.0.0"), opts); ok {
		t.Error("another locked version: UpToDate = true")
	}
	if ok, _ := UpToDate(f.lock("alpha@1.0.0"), opts); ok {
		t.Error("a managed skill to remove: UpToDate = true")
	}
	if ok, _ := UpToDate(f.lock("alpha@1.0.0", "beta@1.0.0", "gamma@1.0.0"), opts); ok {
		t.Error("a skill to install: UpToDate = true")
	}

	// A touched file must be read to be judged: Sync decides (and
	// records the new fingerprint, so the next check is cheap again).
	script := filepath.Join(f.targets[1], "beta", "scripts", "run.sh")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(script, later, later); err != nil {
		t.Fatal(err)
	}
	if ok, _ := UpToDate(l, opts); ok {
		t.Error("a touched file: UpToDate = true")
	}
	if res := f.mustSync(l); res.Count(ActionUnchanged) != 4 {
		t.Fatalf("Sync after a touch: %+v; want 4 unchanged", res.Changes)
	}
	if ok, err := UpToDate(l, opts); !ok || err != nil {
		t.Errorf("after Sync recorded the touch: UpToDate = %v, %v; want true", ok, err)
	}

	// An edit, even one that keeps the size.
	if err := os.WriteFile(script, []byte("echo 1.0.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, _ := UpToDate(l, opts); ok {
		t.Error("an edited file: UpToDate = true")
	}
	if err := os.RemoveAll(filepath.Join(f.targets[0], "alpha")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := UpToDate(l, opts); ok {
		t.Error("a removed folder: UpToDate = true")
	}
}
