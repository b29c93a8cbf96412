package git

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Two clients (two skillpm processes, or two managers of one) fetching
// into one cache take turns on each repository: git's own lock files
// (shallow.lock) never collide.
func TestCacheSharedByClients(t *testing.T) {
	bare, c1, c2 := monorepo(t)
	url := "file://" + bare
	a := newClient(t)
	b := &Client{CacheDir: a.CacheDir, Env: a.Env}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		c, commit := a, c1
		if i%2 == 1 {
			c, commit = b, c2
		}
		wg.Go(func() { errs <- c.Fetch(ctx, url, commit) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Fetch: %v", err)
		}
	}
}

// A fetch killed halfway leaves git's lock files in the cached
// repository; the next run, holding the repository's lock, clears them
// instead of failing on them for ever.
func TestStaleGitLocksCleared(t *testing.T) {
	bare, c1, c2 := monorepo(t)
	url := "file://" + bare
	c := newClient(t)
	ctx := context.Background()
	if err := c.Fetch(ctx, url, c1); err != nil {
		t.Fatal(err)
	}
	dir := c.dirOf(url)
	for _, p := range []string{"shallow.lock", "config.lock", "refs/skillpm/" + c2 + ".lock"} {
		if err := os.WriteFile(filepath.Join(dir, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Fetch(ctx, url, c2); err != nil {
		t.Fatalf("Fetch over stale lock files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "shallow.lock")); !os.IsNotExist(err) {
		t.Errorf("shallow.lock is still there (stat: %v)", err)
	}
}
