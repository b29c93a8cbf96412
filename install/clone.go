package install

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Cloning: a skill is unpacked and checked once per run, however many
// targets it goes to. The first target to stage it materialises it from
// the Source; every other target copies that staged, checked tree
// (prepare).

// copyTree copies the staged skill folder src, whose entries hashTreeList
// listed (sorted), into dst, a new folder
// relative to root (at dstAbs), and returns the copy's stat fingerprint (what
// StatTree would return for it). src is a tree this run staged and
// checked (in a staging folder only this user can enter, mode 0700), so
// its entries are copied as they are; every write goes through an
// os.Root on the new folder, so nothing lands outside it.
//
// Every file of the copy is a new inode, never a hardlink: a user's edit
// in one target cannot change another. The bytes are copied with
// copy_file_range where the OS has it (io.Copy between two files), which
// on filesystems that support it (XFS, btrfs) shares extents copy-on-write
// (a reflink) and elsewhere copies inside the kernel.
func copyTree(src string, entries []treeEntry, root *os.Root, dst, dstAbs string) (string, error) {
	if err := root.Mkdir(dst, 0o755); err != nil {
		return "", fmt.Errorf("copy %s: %w", src, err)
	}
	to, err := root.OpenRoot(dst)
	if err != nil {
		return "", fmt.Errorf("copy %s: %w", src, err)
	}
	defer to.Close()
	// entries are sorted: a folder comes before what it holds.
	for _, e := range entries {
		p, rel := filepath.Join(src, filepath.FromSlash(e.rel)), filepath.FromSlash(e.rel)
		switch t := e.fi.Mode().Type(); {
		case t.IsDir():
			err = to.Mkdir(rel, 0o755)
		case t&fs.ModeSymlink != 0:
			var target string
			if target, err = os.Readlink(p); err == nil {
				err = to.Symlink(target, rel)
			}
		case t.IsRegular():
			err = copyFileIn(p, to, rel, e.fi.Mode().Perm())
		default:
			err = fmt.Errorf("unsupported file type %s", t)
		}
		if err != nil {
			return "", fmt.Errorf("copy %s: %w", p, err)
		}
	}
	// The fingerprint is taken now, once every entry exists (a folder's
	// mtime moves with each entry made in it), from the entries just
	// made: the copy's folders need not be listed again.
	h := sha256.New()
	for _, e := range entries {
		fi, err := os.Lstat(filepath.Join(dstAbs, filepath.FromSlash(e.rel)))
		if err != nil {
			return "", err
		}
		writeStat(h, e.rel, fi)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// copyFileIn copies the regular file src to the new file dst in root.
func copyFileIn(src string, root *os.Root, dst string, perm fs.FileMode) error {
	return copyFileTo(src, func() (*os.File, error) {
		return root.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	})
}
