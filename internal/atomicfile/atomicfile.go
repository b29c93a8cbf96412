// Package atomicfile writes a file so that readers, and a crash, see its
// old content or its new content, never a part: the data goes to a new
// file beside it, which is synced, renamed over the old one, and then the
// folder is synced so the rename itself survives a power loss. The lock,
// skills.yaml, the install records and the blob cache's layout files are
// written through it.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes data to path atomically with the permissions perm.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer root.Close()
	return WriteFileIn(root, filepath.Base(path), data, perm)
}

// WriteFileIn writes data to name, a file directly in root, atomically
// with the permissions perm. Through root, a symbolic link at name is
// replaced, never followed. The temporary file is TempPrefix(name)
// followed by random hex; it is removed on failure.
func WriteFileIn(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return err
	}
	tmp := TempPrefix(name) + hex.EncodeToString(rnd[:])
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer root.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil { // whatever the umask
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		return err
	}
	if err := syncDir(root); err != nil {
		return fmt.Errorf("sync the folder of %s: %w", name, err)
	}
	return nil
}

// TempPrefix is how the temporary files for name begin: name hidden (a
// leading dot, unless it has one) with ".tmp-" appended. Cleaners use it
// to recognise leftovers of a crashed write.
func TempPrefix(name string) string {
	if !strings.HasPrefix(name, ".") {
		name = "." + name
	}
	return name + ".tmp-"
}
