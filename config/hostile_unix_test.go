//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A config path that is a FIFO with no writer, or an endless device, is
// refused at once, naming the file; it is never opened and waited on.
func TestLoadHostile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "config.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		for name, load := range map[string]func(string) error{
			"user":   func(p string) error { _, err := Load(p); return err },
			"system": func(p string) error { _, err := LoadSystem(p); return err },
		} {
			done := make(chan error, 1)
			go func() { done <- load(path) }()
			select {
			case err := <-done:
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a regular file") {
					t.Errorf("%s %s: err = %v, want ErrInvalid naming the file and 'not a regular file'", name, path, err)
				}
			case <-time.After(10 * time.Second):
				// Unblock the reader so the test ends, then fail.
				if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatalf("%s %s: Load still waiting after 10s", name, path)
			}
		}
	}
}
