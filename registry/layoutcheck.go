package registry

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxLayoutEntries bounds the files and folders of a layout folder that
// is checked before it is read.
const maxLayoutEntries = 100_000

// CheckLayout checks the OCI layout folder dir as the client checks every
// layout before it reads one (see checkLayout), allowing at most
// maxEntries files and folders (a bundle allows fewer than a layout
// folder of the user's). A folder it passes is not walked again when the
// client opens it.
func (c *Client) CheckLayout(dir string, maxEntries int) error {
	if err := checkLayout(dir, maxEntries, c.limits.MaxManifestSize); err != nil {
		return err
	}
	if c.checkedLayouts != nil {
		c.checkedLayouts.Store(dir, true)
	}
	return nil
}

// checkLayout checks an OCI layout folder before oras-go reads it: a
// layout a repository carries (oci:./registry) is as hostile as a
// registry's answers. oras-go opens index.json, and every blob it
// reads, with a plain open, which blocks on a FIFO planted there, past
// Ctrl-C and SIGTERM; and it reads index.json whole. So the folder may
// hold only folders and regular files (a link could lead to a FIFO or a
// device), at most maxEntries of them, and an index.json of at most
// maxIndex bytes. Names are not checked: other OCI tools leave files of
// their own in a layout, and blobs are read by their digests. A folder
// that does not exist passes (it is created, or not found, later).
func checkLayout(dir string, maxEntries int, maxIndex int64) error {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			// The folder a link names is what is checked and read.
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				return checkLayout(real, maxEntries, maxIndex)
			}
		}
		return nil
	}
	entries := 0
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%w: layout %s: %v", ErrUnsafeArchive, dir, err)
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if entries++; entries > maxEntries {
			return fmt.Errorf("%w: layout %s holds more than %d files and folders", ErrUnsafeArchive, dir, maxEntries)
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%w: layout %s: %s is not a regular file (%s); a layout holds folders and regular files only", ErrUnsafeArchive, dir, filepath.ToSlash(rel), d.Type())
		}
		if rel == "index.json" {
			if fi, err := d.Info(); err == nil && fi.Size() > maxIndex {
				return fmt.Errorf("%w: layout %s: index.json is %d bytes, over the %d byte limit (limits.max_manifest_size)", ErrUnsafeArchive, dir, fi.Size(), maxIndex)
			}
		}
		return nil
	})
}
