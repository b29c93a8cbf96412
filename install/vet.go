package install

import (
	"context"
	"sync"

	"github.com/skillpm/skillpm/lockfile"
)

// VetFunc judges the content of a locked skill before it is installed:
// dir holds the skill's files, materialised and checked against the
// lock's digests, in a staging folder no agent reads. An error refuses
// the skill, and with it the whole run: no target changes. See
// Options.Vet.
type VetFunc func(ctx context.Context, s lockfile.Skill, dir string) error

// vetOnce calls a VetFunc once per locked skill (name and manifest),
// however many targets stage it, and remembers the verdict.
type vetOnce struct {
	fn   VetFunc
	mu   sync.Mutex
	done map[string]*vetEntry
}

type vetEntry struct {
	once sync.Once
	err  error
}

func newVetOnce(fn VetFunc) *vetOnce {
	return &vetOnce{fn: fn, done: map[string]*vetEntry{}}
}

// check vets s, staged in dir, unless it was vetted already. A nil
// vetOnce or VetFunc accepts everything.
func (v *vetOnce) check(ctx context.Context, s lockfile.Skill, dir string) error {
	if v == nil || v.fn == nil {
		return nil
	}
	key := s.Name + "@" + s.Manifest
	v.mu.Lock()
	e := v.done[key]
	if e == nil {
		e = &vetEntry{}
		v.done[key] = e
	}
	v.mu.Unlock()
	e.once.Do(func() { e.err = v.fn(ctx, s, dir) })
	return e.err
}
