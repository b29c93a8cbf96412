package importer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/skillpm/skillpm/internal/lazyre"
)

// readBounded reads a peer's file: a regular file (never a link) of at
// most MaxFileSize bytes. ok is false when it does not exist.
func readBounded(file string) (data []byte, ok bool, err error) {
	fi, err := os.Lstat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, &FileError{File: file, Err: fmt.Errorf("not a regular file (%s)", fi.Mode().Type())}
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	// The file read must be the one checked, not a link put there since.
	if fi2, err := f.Stat(); err != nil || !os.SameFile(fi, fi2) {
		return nil, false, &FileError{File: file, Err: fmt.Errorf("changed while being read")}
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, false, err
	}
	if len(data) > MaxFileSize {
		return nil, false, &FileError{File: file, Err: fmt.Errorf("larger than %d bytes", MaxFileSize)}
	}
	return data, true, nil
}

var (
	commitRE = lazyre.New(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
	digestRE = lazyre.New(`^sha256:[0-9a-f]{64}$`)
)

// isCommit reports whether ref is a full git commit id.
func isCommit(ref string) bool { return commitRE().MatchString(ref) }

// plain reports whether s is printable text of reasonable length: what
// a peer's file says is echoed in reports and written to skills.yaml.
func plain(s string) bool {
	return len(s) <= 2048 && !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// skillFolder turns a path to a SKILL.md or to its folder, inside a
// repository, into the folder ("" for the root). ok is false for a path
// that leaves the repository.
func skillFolder(p string) (string, bool) {
	p = strings.TrimSuffix(strings.TrimSuffix(p, "SKILL.md"), "/")
	if p == "" || p == "." {
		return "", true
	}
	if strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return "", false
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", false
	}
	return clean, true
}
