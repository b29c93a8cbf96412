// Package filesums carries, through a context, the sha256 of each file
// an unpacker wrote, so that the caller who asked for the files (install,
// which records a digest of the whole tree) need not read them back.
//
// It is an optimisation only: a caller that finds no sum for a file, or
// a sum whose size does not match the file on disk, reads the file.
package filesums

import (
	"context"
	"crypto/sha256"
	"sync"
)

// Sum is the content digest and size of one regular file.
type Sum struct {
	SHA256 [sha256.Size]byte
	Size   int64
}

// Recorder receives the sums of the files written into one folder.
type Recorder struct {
	mu   sync.Mutex
	dir  string
	sums map[string]Sum
}

type key struct{}

// With returns ctx carrying r: an unpacker that finds it reports to it.
func With(ctx context.Context, r *Recorder) context.Context {
	return context.WithValue(ctx, key{}, r)
}

// From returns the Recorder ctx carries, or nil.
func From(ctx context.Context) *Recorder {
	r, _ := ctx.Value(key{}).(*Recorder)
	return r
}

// Set records that dir now holds the regular files in sums, keyed by
// slash-separated path relative to dir. It replaces what an earlier Set
// said. A nil Recorder ignores it.
func (r *Recorder) Set(dir string, sums map[string]Sum) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dir, r.sums = dir, sums
}

// Get returns the sums recorded for dir, or nil when none were (or they
// were recorded for another folder).
func (r *Recorder) Get(dir string) map[string]Sum {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dir != dir {
		return nil
	}
	return r.sums
}
