//go:build unix

package boundedfile

import (
	"os"
	"syscall"
)

// open opens path for reading without blocking on a FIFO that has no
// writer (O_NONBLOCK has no effect on a regular file's reads).
func open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
