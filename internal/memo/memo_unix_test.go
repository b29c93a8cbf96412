//go:build unix

package memo

import (
	"syscall"
	"testing"
)

// A memo that is not a regular file (a FIFO nobody writes to) is no
// answer, at once: Read never blocks on it.
func TestReadFIFO(t *testing.T) {
	dir := t.TempDir()
	k := Key(dir, "kind v1", []byte("data"))
	if err := syscall.Mkfifo(k, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	if b, ok := Read(k, "kind v1", 100); ok {
		t.Errorf("Read of a FIFO = %q, true; want no memo", b)
	}
}
