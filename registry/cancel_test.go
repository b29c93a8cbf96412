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
// completes.
func TestPullCancelled(t *testing.T) {
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
	ingest, _ := filepath.Glob(filepath.Join(f.cache.Dir(), "blobs", "sha256", ".ingest-*"))
	if len(ingest) != 0 {
		t.Errorf("cache ingest files left: %q", ingest)
	}

	f.srv.Hook(nil)
	if _, err := f.client.Pull(bg, f.ref(t, "org/skills/pdf:1.0.0"), dst, PullOptions{}); err != nil {
		t.Fatalf("pull after the cancelled one: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dst, "assets", "data.bin")); err != nil || fi.Size() != int64(len(buf)) {
		t.Errorf("data.bin after the second pull: %v, %v", fi, err)
	}
}
