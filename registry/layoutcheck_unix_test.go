//go:build unix

package registry

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A layout a repository carries is hostile until checked: a blob, or
// index.json, that is a FIFO or a link would block oras-go's open past
// Ctrl-C and SIGTERM, so the layout is refused (ErrUnsafeArchive, exit
// 10) before anything reads it.
func TestLayoutWithFIFORefused(t *testing.T) {
	for _, plant := range []string{"blob FIFO", "index FIFO", "blob link"} {
		t.Run(plant, func(t *testing.T) {
			layout := filepath.Join(t.TempDir(), "registry", "pdf")
			repo, err := ParseReference("oci:" + layout)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Pack(bg, writeSkill(t, t.TempDir(), "pdf", "1.0.0", nil), PackOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := NewClient(Options{}).Publish(bg, p, repo, PublishOptions{}); err != nil {
				t.Fatal(err)
			}
			p.Close()
			blobs, _ := filepath.Glob(filepath.Join(layout, "blobs", "sha256", "*"))
			victim := filepath.Join(layout, "index.json")
			if strings.HasPrefix(plant, "blob") {
				victim = blobs[0]
			}
			if err := os.Remove(victim); err != nil {
				t.Fatal(err)
			}
			if plant == "blob link" {
				fifo := filepath.Join(t.TempDir(), "fifo")
				if err := syscall.Mkfifo(fifo, 0o644); err != nil {
					t.Fatal(err)
				}
				err = os.Symlink(fifo, victim)
			} else {
				err = syscall.Mkfifo(victim, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := NewClient(Options{}).Pull(bg, repo.WithTag("1.0.0"), filepath.Join(t.TempDir(), "out"), PullOptions{})
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, ErrUnsafeArchive) || !strings.Contains(err.Error(), "not a regular file") {
					t.Fatalf("Pull: %v; want ErrUnsafeArchive naming the file that is not regular", err)
				}
			case <-time.After(time.Minute): // a hang, not a slow run
				t.Fatal("Pull blocked on the FIFO")
			}
		})
	}
}
