package install

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/skillpm/skillpm/internal/filesums"
	"github.com/skillpm/skillpm/internal/statat"
)

// Tree describes the files of an installed skill folder.
type Tree struct {
	// Digest hashes every path, its kind, its exec bit and its content.
	Digest string
	// Stat hashes every path with its size, mode, mtime and ctime
	// (where files have one): a cheap fingerprint that, when unchanged,
	// lets Digest be trusted without reading the files (as git's index
	// does). The ctime moves with every write, rename or chmod and no
	// program sets it back: an edit that keeps a file's size and puts
	// its mtime back still changes it.
	Stat string
	// Files are the regular files and symlinks, slash-separated, sorted.
	Files []string
}

// StatTree fingerprints dir without reading file contents.
func StatTree(dir string) (string, error) {
	h := sha256.New()
	if entries, ok := statTreeFast(dir); ok {
		line := make([]byte, 0, 256)
		for _, e := range entries {
			line = e.append(line[:0])
			h.Write(line)
		}
		return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
	}
	return statTreeWalk(dir)
}

// statTreeWalk is StatTree the portable way (filepath.Walk).
func statTreeWalk(dir string) (string, error) {
	h := sha256.New()
	err := walkSorted(dir, func(rel string, fi fs.FileInfo) error {
		writeStat(h, rel, fi)
		return nil
	})
	if err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// writeStat adds one entry to a stat fingerprint.
func writeStat(w io.Writer, rel string, fi fs.FileInfo) {
	statEntry{rel, fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), statat.ChangeTime(fi)}.write(w)
}

// statEntry is one entry of a tree as StatTree fingerprints it.
type statEntry struct {
	rel   string
	mode  fs.FileMode
	size  int64
	mtime int64
	ctime int64 // 0 where files have none
}

// write adds the entry to a stat fingerprint.
func (e statEntry) write(w io.Writer) {
	var b [256]byte
	w.Write(e.append(b[:0]))
}

// append appends the entry's line of a stat fingerprint to b: its path,
// mode (octal), size, mtime and ctime (nanoseconds), as
// fmt.Sprintf("%s\x00%o\x00%d\x00%d\x00%d\n") writes them.
func (e statEntry) append(b []byte) []byte {
	b = append(b, e.rel...)
	b = append(b, 0)
	b = strconv.AppendUint(b, uint64(e.mode), 8)
	b = append(b, 0)
	b = strconv.AppendInt(b, e.size, 10)
	b = append(b, 0)
	b = strconv.AppendInt(b, e.mtime, 10)
	b = append(b, 0)
	b = strconv.AppendInt(b, e.ctime, 10)
	return append(b, '\n')
}

// HashTree reads dir fully and returns its digest, fingerprint and files.
func HashTree(dir string) (*Tree, error) { return hashTree(dir, nil) }

// hashTree is HashTree, taking the content digest of a regular file from
// known (by slash path) instead of reading it, when known has the file
// at the size it has on disk: what an unpacker hashed as it wrote it.
func hashTree(dir string, known map[string]filesums.Sum) (*Tree, error) {
	t, _, err := hashTreeList(dir, known)
	return t, err
}

// treeEntry is one entry below a folder, as hashTree found it.
type treeEntry struct {
	rel string // slash-separated
	fi  fs.FileInfo
}

// hashTreeList is hashTree, also returning the entries it walked, in
// lexical order of their paths (a folder before what it holds), so that
// a copy of the tree need not list it again.
func hashTreeList(dir string, known map[string]filesums.Sum) (*Tree, []treeEntry, error) {
	t := &Tree{}
	var list []treeEntry
	h, st := sha256.New(), sha256.New()
	err := walkSorted(dir, func(rel string, fi fs.FileInfo) error {
		list = append(list, treeEntry{rel, fi})
		writeStat(st, rel, fi)
		p := filepath.Join(dir, filepath.FromSlash(rel))
		switch {
		case fi.IsDir():
			fmt.Fprintf(h, "d %s\n", rel)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "l %s %s\n", rel, target)
			t.Files = append(t.Files, rel)
		case fi.Mode().IsRegular():
			sum, ok := known[rel]
			if !ok || sum.Size != fi.Size() {
				f, err := os.Open(p)
				if err != nil {
					return err
				}
				fh := sha256.New()
				_, err = io.Copy(fh, f)
				f.Close()
				if err != nil {
					return err
				}
				fh.Sum(sum.SHA256[:0])
			}
			kind := "f"
			if fi.Mode()&0o111 != 0 {
				kind = "x"
			}
			fmt.Fprintf(h, "%s %s %x\n", kind, rel, sum.SHA256)
			t.Files = append(t.Files, rel)
		default:
			return fmt.Errorf("%s: unsupported file type %s", p, fi.Mode().Type())
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	t.Digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	t.Stat = "sha256:" + hex.EncodeToString(st.Sum(nil))
	return t, list, nil
}

// walkSorted calls fn for everything below dir (not dir itself) in
// lexical order of slash-separated relative paths, without following
// symlinks.
func walkSorted(dir string, fn func(rel string, fi fs.FileInfo) error) error {
	var entries []string
	infos := map[string]fs.FileInfo{}
	err := filepath.Walk(dir, func(p string, fi fs.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		entries = append(entries, rel)
		infos[rel] = fi
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(entries)
	for _, rel := range entries {
		if err := fn(rel, infos[rel]); err != nil {
			return err
		}
	}
	return nil
}
