package registry

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPullCancelled cancels a pull (what Ctrl-C does) while the layer is
// half downloaded: the pull returns context.Canceled promptly, and leaves
// no skill folder, staging folder or cache entry behind. The next pull
// completes. It runs with the cache spooling through unnamed files and
// through named ones, and cancels only once the layer's spool is open.
func TestPullCancelled(t *testing.T) {
	forEachSpool(t, func(t *testing.T, _ bool) { testPullCancelled(t) })
}

func testPullCancelled(t *testing.T) {
	f := newFixture(t, Options{})
	big := map[string]string{}
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 4<<20)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	big["assets/data.bin"] = string(buf)
	f.publish(t, "pdf", "1.0.0", big)
	res, err := f.client.Resolve(bg, f.ref(t, "org/skills/pdf:1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	layer := res.Layout.Layers[0]
	resp, err := http.Get(f.srv.URL + "/v2/org/skills/pdf/blobs/" + layer.Digest.String())
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 64<<10) // the layer's first 64 KiB
	_, err = io.ReadFull(resp.Body, head)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	f.srv.Hook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/blobs/"+layer.Digest.String()) {
			return false
		}
		// Send the first 64 KiB, then stall until the client goes away.
		w.Header().Set("Content-Length", sprintf("%d", layer.Size))
		w.WriteHeader(http.StatusOK)
		w.Write(head)
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
		return true
	})
	parent := t.TempDir()
	dst := filepath.Join(parent, "pdf")
	done := make(chan error, 1)
	go func() {
		_, err := f.client.Pull(ctx, f.ref(t, "org/skills/pdf:1.0.0"), dst, PullOptions{})
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("pull ended before the layer was half sent: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the layer download never started")
	}
	blobs := filepath.Join(f.cache.Dir(), "blobs", "sha256")
	for deadline := time.Now().Add(10 * time.Second); len(openSpools(t, blobs)) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the layer's spool never opened")
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled pull: %v; want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the pull did not stop within 5s of being cancelled")
	}
	if got := listTree(t, parent); len(got) != 0 {
		t.Errorf("left beside the target: %q", got)
	}
	if f.cache.Has(layer.Digest, -1) {
		t.Errorf("a half-downloaded layer is in the cache")
	}
	if left := openSpools(t, blobs); len(left) != 0 {
		t.Errorf("cache spools left: %q", left)
	}

	f.srv.Hook(nil)
	if _, err := f.client.Pull(bg, f.ref(t, "org/skills/pdf:1.0.0"), dst, PullOptions{}); err != nil {
		t.Fatalf("pull after the cancelled one: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dst, "assets", "data.bin")); err != nil || fi.Size() != int64(len(buf)) {
		t.Errorf("data.bin after the second pull: %v, %v", fi, err)
	}
}

// openSpools lists the cache spools in the blob folder: named ones by
// their files, unnamed ones by the process's open files.
func openSpools(t *testing.T, blobs string) []string {
	t.Helper()
	spools, _ := filepath.Glob(filepath.Join(blobs, ".ingest-*"))
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		// An O_TMPFILE file reads as "DIR/#INODE (deleted)".
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(l, blobs+"/#") {
			spools = append(spools, l)
		}
	}
	return spools
}
