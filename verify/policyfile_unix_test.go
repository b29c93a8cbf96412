//go:build unix

package verify

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/boundedfile"
)

// skills.yaml may name the trust policy file, so a checkout can point it
// at /dev/zero or a FIFO: refused at once, naming the file, not read
// until memory runs out or waited on.
func TestReadPolicyHostileFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "policy.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("version: 1\n"+strings.Repeat("#", MaxPolicySize)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want error
	}{
		{"/dev/zero", boundedfile.ErrNotRegular},
		{fifo, boundedfile.ErrNotRegular},
		{big, boundedfile.ErrTooLarge},
	} {
		_, err := ReadPolicy(tc.path)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("ReadPolicy(%s): %v; want %v naming the file", tc.path, err, tc.want)
		}
	}
}

// A policy, which skills.yaml may name, names its key files too: a key
// that is a FIFO, a device or a huge file is refused at once, naming
// the file, not waited on or read until memory runs out.
func TestReadPolicyHostileKeyFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.pub")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.pub")
	if err := os.WriteFile(big, []byte(strings.Repeat("#", 4<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		want error
	}{
		{fifo, boundedfile.ErrNotRegular},
		{big, boundedfile.ErrTooLarge},
	} {
		for _, block := range []string{"keys: [%q]", "vetted: {keys: [%q]}"} {
			text := "version: 1\nrules:\n  - prefix: \"*\"\n    " + fmt.Sprintf(block, tc.key) + "\n"
			done := make(chan error, 1)
			go func() {
				_, err := ParsePolicy(filepath.Join(dir, "policy.yaml"), []byte(text))
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.key) {
					t.Errorf("%s: %v; want %v naming the key file", block, err, tc.want)
				}
			case <-time.After(5 * time.Second):
				// Unblock the reader: a writer opens and closes the FIFO.
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				t.Fatalf("%s: still reading %s after 5s", block, tc.key)
			}
		}
	}
}
