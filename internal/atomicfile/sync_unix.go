//go:build !windows

package atomicfile

import "os"

// syncDir flushes root's folder entry changes (the rename) to disk.
func syncDir(root *os.Root) error {
	d, err := root.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
