// Package boundedfile reads the small files a repository carries
// (skills.yaml, skills.lock) as the hostile input they are: only a
// regular file (a link to one is followed), opened without waiting on a
// named pipe, and never more than a given number of bytes. A checkout
// whose skills.lock links to /dev/zero, or whose skills.yaml is a FIFO,
// gets an error naming the file instead of a hang or an exhausted
// memory.
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

var (
	// ErrNotRegular: the path names a FIFO, device, socket or folder.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more bytes than the caller allows.
	ErrTooLarge = errors.New("file too large")
)

// Read returns the content of the regular file at path, at most max
// bytes. A missing file is an error satisfying errors.Is(err,
// fs.ErrNotExist), as from os.ReadFile; a file that is not regular
// wraps ErrNotRegular, one over max bytes wraps ErrTooLarge. The errors
// do not repeat path: the caller names the file.
func Read(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, fi.Mode().Type())
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%w: %d bytes, over the %d byte limit", ErrTooLarge, fi.Size(), max)
	}
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// What is read must be what was checked, not a pipe put there since.
	ofi, err := f.Stat()
	if err != nil || !ofi.Mode().IsRegular() || !os.SameFile(fi, ofi) {
		return nil, fmt.Errorf("%w: it changed while it was read", ErrNotRegular)
	}
	// Sized by the stat, as os.ReadFile is, rather than grown from 512
	// bytes by doubling: a 300 KB memo was read into 600 KB of buffers.
	data := make([]byte, 0, min(ofi.Size(), max)+1)
	for {
		n, err := f.Read(data[len(data):min(int64(cap(data)), max+1)])
		data = data[:len(data)+n]
		if err == io.EOF || int64(len(data)) > max {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) { // it grew since the stat
			data = append(data, 0)[:len(data)]
		}
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: over the %d byte limit", ErrTooLarge, max)
	}
	return data, nil
}
