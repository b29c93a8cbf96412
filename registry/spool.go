package registry

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

// A spool is a cache entry being written. Nothing of it is visible
// under its final name before commit, and abort (or a crash) leaves
// nothing a reader could mistake for the entry.
//
// On Linux the spool is an unnamed file (O_TMPFILE) in the cache's
// blob folder, linked in on commit: one directory operation per entry
// where a named temporary file takes two (create, rename), and nothing
// to clean up after a crash. Creating files is most of what a cold pull
// costs on some filesystems. Elsewhere, or where the filesystem refuses
// O_TMPFILE or there is no /proc to link through, the spool is a
// temporary file ".ingest-*" beside the entry, renamed into place.
type spool struct {
	f       *os.File
	dir     string
	tmp     string // the temporary file's name; "" while unnamed
	removed bool   // the temporary file is gone (committed or aborted)
}

var errUnnamedUnsupported = errors.New("unnamed files are not supported here")

// unnamedOK is cleared the first time the platform refuses an unnamed
// file, so that later spools go straight to named ones.
var unnamedOK atomic.Bool

func init() { unnamedOK.Store(unnamedSupported) }

// newSpool starts an entry in dir.
func newSpool(dir string) (*spool, error) {
	if unnamedOK.Load() {
		f, err := openUnnamed(dir)
		if err == nil {
			return &spool{f: f, dir: dir}, nil
		}
		if !errors.Is(err, errUnnamedUnsupported) {
			return nil, err
		}
		unnamedOK.Store(false)
	}
	f, err := os.CreateTemp(dir, ".ingest-*")
	if err != nil {
		return nil, err
	}
	return &spool{f: f, dir: dir, tmp: f.Name()}, nil
}

func (s *spool) Write(p []byte) (int, error) { return s.f.Write(p) }

// commit closes the spool and makes it the entry at path, replacing
// what is there, as rename does.
func (s *spool) commit(path string) error {
	if s.tmp == "" {
		err := linkUnnamed(s.f, path)
		switch {
		case err == nil:
			// In place, and complete: every write has succeeded. A
			// failing close is reported, but the entry stays (reads
			// check it), as it may be another process's by now.
			s.removed = true
			return s.f.Close()
		case errors.Is(err, os.ErrExist):
			// An entry that Has refused (the wrong size, say): link
			// beside it, then rename over it.
			err = s.name()
		default:
			// Naming the file through /proc is refused (no /proc, a
			// sandbox): copy it into a named file, and name files
			// from the start from now on.
			unnamedOK.Store(false)
			err = s.copyOut()
		}
		if err != nil {
			s.abort()
			return err
		}
	}
	if err := s.f.Close(); err != nil {
		s.abort()
		return err
	}
	if err := os.Rename(s.tmp, path); err != nil {
		s.abort()
		return err
	}
	s.removed = true
	return nil
}

// name links the unnamed file under a temporary name beside the entry.
func (s *spool) name() error {
	for range 100 {
		tmp := filepath.Join(s.dir, ".ingest-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err := linkUnnamed(s.f, tmp)
		if err == nil {
			s.tmp = tmp
			return nil
		}
		if !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	return errors.New("no free temporary name in " + s.dir)
}

// copyOut copies the unnamed file into a named temporary one.
func (s *spool) copyOut() error {
	named, err := os.CreateTemp(s.dir, ".ingest-*")
	if err != nil {
		return err
	}
	if _, err = s.f.Seek(0, io.SeekStart); err == nil {
		_, err = io.Copy(named, s.f) // copy_file_range where it can
	}
	s.f.Close()
	s.f, s.tmp = named, named.Name()
	if err != nil {
		named.Close()
		os.Remove(s.tmp)
		s.removed = true
	}
	return err
}

// abort drops the spool.
func (s *spool) abort() {
	s.f.Close()
	if s.tmp != "" && !s.removed {
		os.Remove(s.tmp)
	}
	s.removed = true
}
