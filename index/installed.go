package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/skillpm/skillpm/internal/statat"
	"github.com/skillpm/skillpm/skill"
	bolt "go.etcd.io/bbolt"
)

// Stamp is the cheap identity of one file, as stat reports it: its size
// and modification time and, where the system has them, its inode number
// and status-change time. A missing file has Size -1.
type Stamp struct {
	Size    int64  `json:"s"`
	ModTime int64  `json:"m"` // Unix nanoseconds
	Ino     uint64 `json:"i,omitempty"`
	Change  int64  `json:"c,omitempty"` // ctime, Unix nanoseconds
}

// Fingerprint identifies the state of a skill folder well enough to tell
// that its metadata has not changed, without reading any file: the stamps
// of SKILL.md and tools.json, the only files a skill's metadata is parsed
// from (skill.Load).
//
// It is conservative where files have a status-change time (Linux,
// macOS): ctime moves on every write, rename, link or attribute change and
// cannot be set back by a program, and a file replaced by another (an
// editor's atomic save, skillpm swapping in a new version whose archive
// recorded the same mtime) has a new inode and a fresh ctime. Installed
// skills are the user's own files, so nothing hostile races the check; a
// changed stamp only costs a re-parse. Elsewhere the folder's modification
// time (which moves when a file is added, removed or renamed in it) is
// added, as Dir.
type Fingerprint struct {
	SkillMD   Stamp `json:"md"`
	ToolsJSON Stamp `json:"tj"`
	Dir       int64 `json:"d,omitempty"` // only where files have no ctime
}

// What is read of a folder is remembered (in the index or a memo) only
// once its SKILL.md and tools.json last changed longer before the read
// than their file system's timestamp granularity: a file written again
// within that granularity of the read can keep its size, mtime, inode
// and ctime, and its fingerprint would name the metadata read before
// that write from then on. A time with a fraction of a second comes from
// a clock that fine, give or take a tick (Linux before 6.13 stamps files
// from a clock that moves every few milliseconds, Windows every 15.6 ms):
// settleFine covers it. A whole second may come from a file system that
// keeps no more (HFS+, ext4 with small inodes, FAT's two seconds):
// settleCoarse.
const (
	settleFine   = 50 * time.Millisecond
	settleCoarse = 2 * time.Second
)

// settled reports whether every file of the fingerprint last changed
// long enough before now (Unix nanoseconds) not to change again with the
// same stamp: by its ctime where it has one, else by its mtime and the
// folder's.
func (fp Fingerprint) settled(now int64) bool {
	old := func(at int64) bool {
		margin := settleFine
		if at%int64(time.Second) == 0 {
			margin = settleCoarse
		}
		return at < now-int64(margin)
	}
	for _, s := range [...]Stamp{fp.SkillMD, fp.ToolsJSON} {
		at := s.Change
		if at == 0 {
			at = s.ModTime
		}
		if s.Size >= 0 && !old(at) {
			return false
		}
	}
	return fp.Dir == 0 || old(fp.Dir)
}

// FingerprintOf stats dir's SKILL.md and tools.json (and dir itself where
// files have no status-change time).
func FingerprintOf(dir string) (Fingerprint, error) {
	md, err := os.Stat(filepath.Join(dir, skill.FileName))
	if err != nil {
		return Fingerprint{}, err
	}
	tj, err := os.Stat(filepath.Join(dir, skill.ToolsFileName))
	return fingerprint(dir, md, tj, err)
}

// fingerprint assembles dir's fingerprint from what stat said of its
// SKILL.md (md, following links) and of its tools.json.
func fingerprint(dir string, md, tj fs.FileInfo, tjErr error) (Fingerprint, error) {
	var fp Fingerprint
	var exact bool
	fp.SkillMD, exact = stampOf(md)
	if !exact {
		fi, err := os.Stat(dir)
		if err != nil {
			return fp, err
		}
		fp.Dir = fi.ModTime().UnixNano()
	}
	var err error
	fp.ToolsJSON, err = stamp(tj, tjErr)
	return fp, err
}

// fingerprints returns the fingerprint of each of dirs, or why it has
// none. mds, when it has one entry per folder, holds what stat said of
// each SKILL.md a moment ago (nil: stat it). The files of folders that
// share a parent, as the skills of one discovery folder do, are stat'ed
// relative to it (statat).
func fingerprints(dirs []string, mds []fs.FileInfo) ([]Fingerprint, []error) {
	fps, errs := make([]Fingerprint, len(dirs)), make([]error, len(dirs))
	if len(mds) != len(dirs) {
		mds = make([]fs.FileInfo, len(dirs))
	}
	// A folder is named by its parent and base once its path is clean:
	// "/s/pdf/" is /s/pdf, not /s/pdf/pdf. Cleaned once each: a
	// thousand paths cleaned three times was the most user time a warm
	// listing spent anywhere.
	parents, bases := make([]string, len(dirs)), make([]string, len(dirs))
	for i, dir := range dirs {
		parents[i], bases[i] = filepath.Split(filepath.Clean(dir))
		if parents[i] == "" {
			parents[i] = "."
		}
	}
	for lo := 0; lo < len(dirs); {
		hi := lo + 1
		for hi < len(dirs) && parents[hi] == parents[lo] {
			hi++
		}
		fingerprintsIn(parents[lo], dirs[lo:hi], bases[lo:hi], mds[lo:hi], fps[lo:hi], errs[lo:hi])
		lo = hi
	}
	return fps, errs
}

// fingerprintsIn is fingerprints for folders of the same parent, named
// in it by bases.
func fingerprintsIn(parent string, dirs, bases []string, mds []fs.FileInfo, fps []Fingerprint, errs []error) {
	d, err := statat.Open(parent)
	if err != nil {
		for i, dir := range dirs {
			md := mds[i]
			if md == nil {
				if md, errs[i] = os.Stat(filepath.Join(dir, skill.FileName)); errs[i] != nil {
					continue
				}
			}
			tj, err := os.Stat(filepath.Join(dir, skill.ToolsFileName))
			fps[i], errs[i] = fingerprint(dir, md, tj, err)
		}
		return
	}
	defer d.Close()
	// The SKILL.md stats the caller did not have (into a copy: mds is
	// the caller's), then every tools.json.
	var mdNames []string
	var at []int
	for i := range dirs {
		if mds[i] == nil {
			at = append(at, i)
			mdNames = append(mdNames, bases[i]+"/"+skill.FileName)
		}
	}
	if len(at) > 0 {
		mds = slices.Clone(mds)
		d.StatEach(mdNames, func(j int, fi fs.FileInfo, err error) {
			mds[at[j]], errs[at[j]] = fi, err
		})
	}
	tjNames := make([]string, len(dirs))
	for i, base := range bases {
		tjNames[i] = base + "/" + skill.ToolsFileName
	}
	d.StatEach(tjNames, func(i int, tj fs.FileInfo, err error) {
		if errs[i] == nil {
			fps[i], errs[i] = fingerprint(dirs[i], mds[i], tj, err)
		}
	})
}

// stampOf returns fi's stamp and whether it carries the inode and ctime.
func stampOf(fi fs.FileInfo) (Stamp, bool) {
	st := Stamp{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	ino, ctime, ok := statat.ChangeID(fi)
	st.Ino, st.Change = ino, ctime
	return st, ok
}

// stamp is the stamp of a file as stat returned it, with Size -1 for a
// missing one.
func stamp(fi fs.FileInfo, err error) (Stamp, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return Stamp{Size: -1}, nil
	}
	if err != nil {
		return Stamp{}, err
	}
	st, _ := stampOf(fi)
	return st, nil
}

// Skill is the metadata of one installed skill that listing commands need:
// everything but the body.
type Skill struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Version     string       `json:"version,omitempty"`
	Tools       []skill.Tool `json:"tools,omitempty"`
	// Secrets are the names of the environment variables the skill declares.
	Secrets []string `json:"secrets,omitempty"`
	// Permissions are the skill's declared permissions (Universal §8);
	// nil when it declares none.
	Permissions *skill.Permissions `json:"permissions,omitempty"`
	// RequireConfirmation is the skill's safety.require_confirmation_for
	// (Universal §8): the kinds of action a user must confirm.
	RequireConfirmation []string `json:"require_confirmation_for,omitempty"`
	// WhenToUse are the Universal selection triggers.
	WhenToUse *skill.WhenToUse `json:"when_to_use,omitempty"`
	// HostOverrides are the host-specific overlays.
	HostOverrides []skill.HostOverride `json:"host_overrides,omitempty"`
	// Problems are the rule violations found while loading (a broken
	// tools.json, a field of the wrong type), for commands that serve the
	// skill anyway and must say so.
	Problems []skill.Diagnostic `json:"problems,omitempty"`
}

// FromSkill extracts the indexed metadata of a loaded skill.
func FromSkill(s *skill.Skill) Skill {
	m := Skill{
		Name:          s.Frontmatter.Name,
		Description:   s.Frontmatter.Description,
		Version:       s.Frontmatter.Version,
		WhenToUse:     s.Frontmatter.WhenToUse,
		Permissions:   s.Frontmatter.Permissions,
		HostOverrides: s.Frontmatter.HostOverrides,
		Problems:      s.LoadProblems(),
	}
	if l, ok := s.Frontmatter.Safety["require_confirmation_for"].([]any); ok {
		for _, v := range l {
			if k, ok := v.(string); ok && k != "" {
				m.RequireConfirmation = append(m.RequireConfirmation, k)
			}
		}
	}
	for _, t := range s.Tools {
		// Only the exported fields: the index stores no more, and a
		// parsed Tool also holds the raw declaration for lint.
		m.Tools = append(m.Tools, skill.Tool{
			Name: t.Name, Description: t.Description,
			InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
			Runtime: t.Runtime, Entrypoint: t.Entrypoint, Handler: t.Handler,
			TimeoutSeconds: t.TimeoutSeconds, Dependencies: t.Dependencies,
			Confirmation: t.Confirmation, Source: t.Source, Format: t.Format,
		})
	}
	for _, sec := range s.Frontmatter.Secrets {
		if sec.Name != "" {
			m.Secrets = append(m.Secrets, sec.Name)
		}
	}
	return m
}

// Record is the value stored under a skill folder's path.
type Record struct {
	Fingerprint Fingerprint `json:"fp"`
	Skill       Skill       `json:"skill"`
}

// Options configures [Installed]. The zero value is ready to use.
type Options struct {
	// Timeout bounds the wait for the index file's lock. If <= 0,
	// DefaultTimeout (100ms) is used.
	Timeout time.Duration
	// Workers bounds how many skills are parsed at once on a miss. If <= 0,
	// GOMAXPROCS is used.
	Workers int
	// ReadOnly leaves the index file untouched: misses are parsed but not
	// written back.
	ReadOnly bool
	// Load parses one skill folder. Default: skill.Load.
	Load func(dir string) (*skill.Skill, error)
	// SkillMD, when it has one entry per folder, is what os.Stat said of
	// each folder's SKILL.md a moment ago (install.Entry.SkillMD): the
	// fingerprint then does not stat it again. A nil entry is stat'ed.
	SkillMD []fs.FileInfo
}

// Result is the metadata of one skill folder, or why it has none.
type Result struct {
	Dir    string
	Skill  Skill
	Err    error // the folder could not be read as a skill
	Cached bool  // the metadata came from the index
}

// Stats says how the index served a call to [Installed].
type Stats struct {
	Hits, Misses int
	// ReadErr is why the index could not be read (missing, locked, corrupt,
	// other format); every folder was then a miss.
	ReadErr error
	// Wrote reports that misses were written back; WriteErr is why they
	// were not, when there were some.
	Wrote    bool
	WriteErr error
	// Rebuilt reports that a corrupt index file was replaced.
	Rebuilt bool
	// Memo reports that the memo of the whole set (see MemoDirName)
	// served the call: the index file was not opened, and only the
	// folders that could not be read when it was written were read
	// again (Misses).
	Memo bool
}

// allRead reports whether no folder of res has an error (before the
// parse: every folder has a fingerprint).
func allRead(res []Result) bool {
	for i := range res {
		if res[i].Err != nil {
			return false
		}
	}
	return true
}

// Installed returns the metadata of each skill folder in dirs (absolute
// paths), in the same order, from the index at path when the folder's
// fingerprint matches and by parsing it otherwise. Parsed metadata is
// written back unless opts.ReadOnly. An empty path disables the index.
//
// When every folder has a fingerprint, the whole answer is also
// remembered in a memo beside the index (MemoDirName), named by every
// folder's path and fingerprint: the next call over the same folders in
// the same states reads that one file instead of the index, and parses
// again only the folders that could not be read (memo.go). It is written only
// when the index may be (not opts.ReadOnly). Neither remembers a folder
// whose files changed just before the call (Fingerprint.settled).
//
// Installed never fails as a whole: a folder that cannot be parsed has Err
// set, and index problems only show in Stats.
func Installed(ctx context.Context, path string, dirs []string, opts Options) ([]Result, Stats) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Load == nil {
		opts.Load = skill.Load
	}
	// Files are read after this: one that settled by now is not
	// changed again with the same stamp (Fingerprint.settled).
	now := time.Now().UnixNano()
	res := make([]Result, len(dirs))
	fps, errs := fingerprints(dirs, opts.SkillMD)
	for i, d := range dirs {
		res[i].Dir, res[i].Err = d, errs[i]
	}

	// The whole set's memo, when every folder has a fingerprint to name
	// it by (memo.go).
	var key string
	if path != "" && len(dirs) > 0 && allRead(res) {
		key = memoKey(path, dirs, fps)
		if known, ok := readMemo(key, len(dirs), func(i int) *Skill { return &res[i].Skill }); ok {
			var again []int
			for i := range res {
				if known[i] {
					res[i].Cached = true
				} else {
					again = append(again, i)
				}
			}
			parse(ctx, res, again, opts)
			return res, Stats{Hits: len(res) - len(again), Misses: len(again), Memo: true}
		}
		for i := range res {
			res[i].Skill = Skill{} // what a memo that did not decode left
		}
	}

	var st Stats
	if path == "" {
		st.ReadErr = errors.New("index disabled")
	} else {
		st.ReadErr = lookup(path, opts.Timeout, res, fps)
	}

	var miss []int
	for i := range res {
		switch {
		case res[i].Cached:
			st.Hits++
		case res[i].Err == nil:
			miss = append(miss, i)
		}
	}
	st.Misses = len(miss)
	parse(ctx, res, miss, opts)

	settled := true
	for i := range fps {
		settled = settled && fps[i].settled(now)
	}
	if key != "" && !opts.ReadOnly && ctx.Err() == nil && settled {
		writeMemo(key, res)
	}

	recs := map[string]Record{}
	for _, i := range miss {
		if res[i].Err == nil && fps[i].settled(now) {
			recs[res[i].Dir] = Record{Fingerprint: fps[i], Skill: res[i].Skill}
		}
	}
	corrupt := errors.Is(st.ReadErr, ErrCorrupt)
	if path == "" || opts.ReadOnly || ctx.Err() != nil || (len(recs) == 0 && !corrupt) {
		return res, st
	}
	st.Rebuilt, st.WriteErr = store(path, opts.Timeout, recs, corrupt)
	st.Wrote = st.WriteErr == nil
	return res, st
}

// lookup fills res[i] from the index where the stored fingerprint equals
// fps[i]. It returns why the index could not be read, or nil.
func lookup(path string, timeout time.Duration, res []Result, fps []Fingerprint) error {
	db, err := openDB(path, true, timeout)
	if err != nil {
		return err
	}
	defer db.Close()
	return view(db, func(tx *bolt.Tx) error {
		if err := checkFormat(tx); err != nil {
			return err
		}
		b := tx.Bucket(BucketInstalled)
		if b == nil {
			return fmt.Errorf("%w: no installed bucket", ErrFormat)
		}
		// Values stay valid until the transaction ends: gather them,
		// then decode in parallel (JSON decoding is most of a warm run).
		vals := make([][]byte, len(res))
		for i := range res {
			if res[i].Err == nil {
				vals[i] = b.Get([]byte(res[i].Dir))
			}
		}
		decode := func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if vals[i] == nil {
					continue
				}
				var rec Record
				if json.Unmarshal(vals[i], &rec) != nil || rec.Fingerprint != fps[i] {
					continue
				}
				res[i].Skill, res[i].Cached = rec.Skill, true
			}
		}
		workers := min(runtime.GOMAXPROCS(0), max(1, len(res)/64))
		var wg sync.WaitGroup
		for w := range workers {
			lo, hi := w*len(res)/workers, (w+1)*len(res)/workers
			wg.Go(func() { decode(lo, hi) })
		}
		wg.Wait()
		return nil
	})
}

// parse loads the skills at the indexes miss, in parallel.
func parse(ctx context.Context, res []Result, miss []int, opts Options) {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(miss))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				s, err := opts.Load(res[i].Dir)
				if err != nil {
					res[i].Err = err
					continue
				}
				res[i].Skill = FromSkill(s)
			}
		})
	}
	for _, i := range miss {
		if ctx.Err() != nil {
			res[i].Err = ctx.Err()
			continue
		}
		next <- i
	}
	close(next)
	wg.Wait()
}

// store writes recs in one transaction, replacing a corrupt file first. It
// also drops records of folders that no longer hold a SKILL.md.
func store(path string, timeout time.Duration, recs map[string]Record, corrupt bool) (rebuilt bool, err error) {
	if corrupt {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("remove corrupt index: %w", err)
		}
		rebuilt = true
	}
	db, err := openDB(path, false, timeout)
	if errors.Is(err, ErrCorrupt) && !rebuilt { // damaged since we read it
		if rerr := os.Remove(path); rerr != nil {
			return false, fmt.Errorf("remove corrupt index: %w", rerr)
		}
		rebuilt = true
		db, err = openDB(path, false, timeout)
	}
	if err != nil {
		return rebuilt, err
	}
	defer db.Close()
	err = update(db, func(tx *bolt.Tx) error {
		if err := prepare(tx); err != nil {
			return err
		}
		b := tx.Bucket(BucketInstalled)
		for dir, rec := range recs {
			v, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(dir), v); err != nil {
				return err
			}
		}
		return prune(b)
	})
	if err != nil {
		return rebuilt, fmt.Errorf("write index: %w", err)
	}
	return rebuilt, nil
}

// prune deletes the records of folders that no longer hold a SKILL.md.
func prune(b *bolt.Bucket) error {
	var gone [][]byte
	err := b.ForEach(func(k, _ []byte) error {
		if _, err := os.Stat(filepath.Join(string(k), skill.FileName)); errors.Is(err, fs.ErrNotExist) {
			gone = append(gone, append([]byte(nil), k...))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range gone {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
