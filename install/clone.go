package install

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Cloning: a skill is unpacked and checked once per run, however many
// targets it goes to. The first target to stage it materialises it from
// the Source; every other target copies that staged, checked tree
// (prepare).

// copyTree copies the staged skill folder src into dst, a new folder
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
func copyTree(src string, root *os.Root, dst, dstAbs string) (string, error) {
	if err := root.Mkdir(dst, 0o755); err != nil {
		return "", fmt.Errorf("copy %s: %w", src, err)
	}
	to, err := root.OpenRoot(dst)
	if err != nil {
		return "", fmt.Errorf("copy %s: %w", src, err)
	}
	defer to.Close()
	var rels []string
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == src {
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		switch t := d.Type(); {
		case t.IsDir():
			err = to.Mkdir(rel, 0o755)
		case t&fs.ModeSymlink != 0:
			var target string
			if target, err = os.Readlink(p); err == nil {
				err = to.Symlink(target, rel)
			}
		case t.IsRegular():
			var fi fs.FileInfo
			if fi, err = d.Info(); err == nil {
				err = copyFileIn(p, to, rel, fi.Mode().Perm())
			}
		default:
			err = fmt.Errorf("unsupported file type %s", t)
		}
		if err != nil {
			return fmt.Errorf("copy %s: %w", p, err)
		}
		rels = append(rels, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return "", err
	}
	// The fingerprint is taken now, once every entry exists (a folder's
	// mtime moves with each entry made in it), from the entries just
	// made: the copy's folders need not be listed again.
	sort.Strings(rels)
	h := sha256.New()
	for _, rel := range rels {
		fi, err := os.Lstat(filepath.Join(dstAbs, filepath.FromSlash(rel)))
		if err != nil {
			return "", err
		}
		writeStat(h, rel, fi)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// copyFileIn copies the regular file src to the new file dst in root.
func copyFileIn(src string, root *os.Root, dst string, perm fs.FileMode) error {
	return copyFileTo(src, func() (*os.File, error) {
		return root.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	})
}
