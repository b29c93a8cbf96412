// Package index keeps skillpm's metadata index: one bbolt file that caches
// what skillpm has learnt about skills, so that listing commands (tools,
// prompt, mcp, list) read no SKILL.md when nothing changed.
//
// Every function takes the file's path from its caller; the package reads
// no environment (the CLI keeps the file at $SKILLPM_HOME/index.db, else
// in the user cache folder).
//
// It is only ever a cache: every caller has the files to fall
// back on, and [Installed] does so whenever the index cannot be used — it is
// missing, locked by a writer for longer than Options.Timeout, corrupt, or
// from another format version. A corrupt or outdated file is rebuilt when it
// can be; nothing here panics or fails a command.
//
// # The memo of the installed set
//
// Beside the file, the folder MemoDirName keeps [Installed]'s whole answer
// for the last sets of folders it was asked about, each under the digest
// of every folder's path and fingerprint (internal/memo): a warm listing
// reads one small file instead of a thousand records, and any change to
// a folder names another memo. It is a cache of the cache, written only
// when the index may be.
//
// # Concurrency
//
// Readers open the file read-only (a shared lock; any number at once). Misses
// are written back in one short read-write transaction under the exclusive
// lock, taken with the same timeout; if another process holds it, the write
// is skipped and the next run tries again.
//
// # Bucket layout (format 1)
//
//	meta                      "format" -> "1"
//	installed                 absolute skill folder path -> JSON [Record]
//
// The remote catalog ([Remote]), so that resolve, outdated and search can
// answer from the index without a network:
//
//	remote/tags/<repository>  tag -> manifest digest ("sha256:...")
//	remote/configs            manifest digest -> config blob JSON (immutable)
//	remote/repos              repository -> JSON {listedAt, etag} for refresh
//
// Keys are raw bytes; values are small JSON documents. A change to the
// layout or to a value's shape bumps [Format], and an index of another
// format is treated as empty and rewritten.
package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Format is the index file's layout version, stored under meta/format.
const Format = "4" // 3: installed skills record their permissions; 4: and safety.require_confirmation_for

// Bucket names. The remote ones are reserved; see the package doc.
var (
	BucketMeta        = []byte("meta")
	BucketInstalled   = []byte("installed")
	BucketRemoteTags  = []byte("remote/tags")
	BucketRemoteConfs = []byte("remote/configs")
	BucketRemoteRepos = []byte("remote/repos")
)

var keyFormat = []byte("format")

// FileName is the index file's name inside its folder.
const FileName = "index.db"

// DefaultTimeout bounds how long opening the index waits for a lock.
const DefaultTimeout = 100 * time.Millisecond

// ErrCorrupt is wrapped by errors for an index file that cannot be read:
// not a bbolt file, a bad checksum, a page bbolt refuses.
var ErrCorrupt = errors.New("index file is corrupt")

// ErrLocked is wrapped when another process held the index's lock for longer
// than the timeout.
var ErrLocked = errors.New("index file is locked by another process")

// ErrFormat is wrapped when the index was written in another format version.
var ErrFormat = errors.New("index file has another format version")

// openDB opens the bbolt file, classifying failures as ErrLocked or
// ErrCorrupt. A missing file opened read-only gives an fs.ErrNotExist error.
func openDB(path string, readOnly bool, timeout time.Duration) (db *bolt.DB, err error) {
	defer func() {
		if r := recover(); r != nil { // bbolt panics on some damaged files
			db, err = nil, fmt.Errorf("open %s: %w: %v", path, ErrCorrupt, r)
		}
	}()
	if readOnly {
		if _, err := os.Stat(path); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create index folder: %w", err)
	}
	db, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: readOnly, Timeout: timeout})
	switch {
	case err == nil:
		return db, nil
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("open %s: %w", path, ErrLocked)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrInvalidMapping):
		return nil, fmt.Errorf("open %s: %w: %v", path, ErrCorrupt, err)
	}
	// bbolt reports some damage (a truncated file, a bad page size) with
	// plain errors; a regular file that bbolt cannot open is treated as
	// corrupt so that it gets rebuilt.
	if fi, serr := os.Stat(path); serr == nil && fi.Mode().IsRegular() {
		return nil, fmt.Errorf("open %s: %w: %v", path, ErrCorrupt, err)
	}
	return nil, fmt.Errorf("open %s: %w", path, err)
}

// view runs fn in a read-only transaction, turning a bbolt panic on a
// damaged page into ErrCorrupt.
func view(db *bolt.DB, fn func(*bolt.Tx) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("read index: %w: %v", ErrCorrupt, r)
		}
	}()
	return db.View(fn)
}

// update runs fn in a read-write transaction, recovering from bbolt panics
// as view does.
func update(db *bolt.DB, fn func(*bolt.Tx) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("write index: %w: %v", ErrCorrupt, r)
		}
	}()
	return db.Update(fn)
}

// checkFormat reports ErrFormat unless the meta bucket names Format.
func checkFormat(tx *bolt.Tx) error {
	b := tx.Bucket(BucketMeta)
	if b == nil {
		return fmt.Errorf("%w: no meta bucket", ErrFormat)
	}
	if v := b.Get(keyFormat); string(v) != Format {
		return fmt.Errorf("%w: %q, want %q", ErrFormat, v, Format)
	}
	return nil
}

// prepare creates the buckets a writer needs and sets the format; an index
// of another format loses its installed bucket first.
func prepare(tx *bolt.Tx) error {
	if checkFormat(tx) != nil {
		for _, name := range [][]byte{BucketInstalled, BucketMeta, BucketRemoteTags, BucketRemoteConfs, BucketRemoteRepos, BucketCatalog} {
			if tx.Bucket(name) != nil {
				if err := tx.DeleteBucket(name); err != nil {
					return err
				}
			}
		}
	}
	meta, err := tx.CreateBucketIfNotExists(BucketMeta)
	if err != nil {
		return err
	}
	if err := meta.Put(keyFormat, []byte(Format)); err != nil {
		return err
	}
	_, err = tx.CreateBucketIfNotExists(BucketInstalled)
	return err
}
