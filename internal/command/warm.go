package command

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/internal/atomicfile"
	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/internal/memo"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/project"
	"github.com/urfave/cli/v2"
)

// Warm installs. 'skillpm install' with nothing to do is what CI, hooks
// and agents run most, and it would pay for starting the full program
// only to find that. So the full program, after an install that changed
// and wrote nothing, leaves a stamp in the cache: a digest of everything
// that run depended on (the command line, the working folder, the
// environment variables it reads (warmEnv), the full program's file, and the bytes of
// skills.yaml, skills.lock and the user and system configs), the options
// it planned the targets with, and what it printed. The front answers the
// same command line itself, under the project lock, when that digest is
// unchanged and install.UpToDate (the full program's own planning) finds
// every target still holding the lock; anything else, and any doubt, is
// handed to skillpm-full. The stamp is trusted as the rest of the user's
// cache is. The full program leaves none for a run that read anything
// else that could change under an unchanged lock (a local folder source,
// a trust policy's signature checks), or that printed debug output.

// warmVersion names the stamp format and what its digest covers; a
// stamp's first line.
const warmVersion = "skillpm warm install v2"

// warmEnv are the environment variables an install reads besides PATH
// (which only finds skillpm-full, whose file the digest covers): where
// the configs, the cache and the user scope are, the default registry,
// and how output looks. Secrets (SKILLPM_KEY_PASSWORD, tokens) are not
// among them, and so never digested into the cache.
var warmEnv = []string{"SKILLPM_HOME", "SKILLPM_REGISTRY", "SKILLPM_SYSTEM_CONFIG", "SKILLPM_TEST_CRASH_AFTER_SWAPS",
	"HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "NO_COLOR", "TERM"}

// maxWarmInput bounds each file the digest reads, and the stamp.
const maxWarmInput = 64 << 20

// warmStamp is what a no-op install left for the front. It is kept in
// memo's field format (encode), not JSON: the front reads nothing else
// as JSON on this path, and the first decode of a type costs more than
// reading the stamp.
type warmStamp struct {
	Inputs     string // warmInputs of that run
	Targets    []string
	Owner      string
	Root       string
	Allow      []string
	RecordMemo string
	LockMemo   string
	Stdout     string
	Stderr     string
}

// encode returns the stamp's file: warmVersion on a line, then its
// fields.
func (st *warmStamp) encode() []byte {
	e := memo.Encoder{B: []byte(warmVersion + "\n")}
	e.Str(st.Inputs)
	e.Strs(st.Targets)
	e.Str(st.Owner)
	e.Str(st.Root)
	e.Strs(st.Allow)
	e.Str(st.RecordMemo)
	e.Str(st.LockMemo)
	e.Str(st.Stdout)
	e.Str(st.Stderr)
	return e.B
}

// readWarmStamp reads the stamp at path; ok is false when there is none
// or it is not one encode wrote.
func readWarmStamp(path string) (st warmStamp, ok bool) {
	d, ok := memo.ReadDecoder(path, warmVersion, maxWarmInput)
	if !ok {
		return st, false
	}
	st.Inputs = d.Str()
	st.Targets = d.Strs()
	st.Owner, st.Root = d.Str(), d.Str()
	st.Allow = d.Strs()
	st.RecordMemo, st.LockMemo = d.Str(), d.Str()
	st.Stdout, st.Stderr = d.Str(), d.Str()
	return st, d.Done()
}

// WarmOptions are the target options a no-op install planned with
// (manager.Manager.TargetOptions) and the lock memo it read the lock
// through.
type WarmOptions struct {
	Targets    []string
	Owner      string
	Bounds     install.Bounds
	RecordMemo string
	LockMemo   string
}

// WarmRecorder watches one install run of the full program for a stamp.
type WarmRecorder struct {
	e              *Env
	args           []string
	dir, full      string
	inputs         string
	out, errOut    bytes.Buffer
	stdout, stderr io.Writer
}

// warmEligible reports whether a command line may be answered from a
// stamp: not a dry run, a bundle, a forced or debugged run, or one with
// --agent targets.
func warmEligible(args []string) bool {
	for _, f := range []string{"dry-run", "from", "force", "debug", "agent"} {
		if HasFlag(args, f) || slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--"+f+"=") }) {
			return false
		}
	}
	return true
}

// StartWarm begins watching an install of the project in dir: it takes
// the digest of the run's inputs now and copies what the run prints. It
// returns nil when the command line cannot be answered from a stamp.
func StartWarm(e *Env, args []string, dir string) *WarmRecorder {
	full, err := os.Executable()
	if err != nil || !warmEligible(args) {
		return nil
	}
	inputs, _, err := warmInputs(args, dir, full)
	if err != nil {
		return nil
	}
	r := &WarmRecorder{e: e, args: args, dir: dir, full: full, inputs: inputs, stdout: e.Stdout, stderr: e.Stderr}
	e.Stdout, e.Stderr = io.MultiWriter(e.Stdout, &r.out), io.MultiWriter(e.Stderr, &r.errOut)
	return r
}

// Finish stops watching. With noop (the run changed and wrote nothing
// and read nothing a stamp does not cover), it leaves the stamp, if the
// inputs are still those the run started with. Failing to write it is
// not an error: the next run is only slower.
func (r *WarmRecorder) Finish(noop bool, o WarmOptions) {
	if r == nil {
		return
	}
	r.e.Stdout, r.e.Stderr = r.stdout, r.stderr
	path, err := warmStampPath(r.args, r.full)
	if err != nil {
		return
	}
	if !noop {
		os.Remove(path)
		return
	}
	if inputs, _, err := warmInputs(r.args, r.dir, r.full); err != nil || inputs != r.inputs {
		return
	}
	st := warmStamp{Inputs: r.inputs, Targets: o.Targets, Owner: o.Owner, Root: o.Bounds.Root, Allow: o.Bounds.Allow,
		RecordMemo: o.RecordMemo, LockMemo: o.LockMemo, Stdout: r.out.String(), Stderr: r.errOut.String()}
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	atomicfile.WriteFile(path, st.encode(), 0o600)
}

// errNotWarm is any reason the front cannot answer an install itself.
var errNotWarm = errors.New("not a warm no-op install")

// warmInstall answers the install command line args from its stamp: it
// prints what the no-op run printed and returns nil, or errNotWarm (or
// another error) when the full program must run it.
func warmInstall(ctx context.Context, e *Env, c *cli.Context, args []string) error {
	if !warmEligible(args) {
		return errNotWarm
	}
	dir, err := ProjectDir(c)
	if err != nil {
		return err
	}
	full, err := FindFull()
	if err != nil {
		return err
	}
	path, err := warmStampPath(args, full)
	if err != nil {
		return err
	}
	st, ok := readWarmStamp(path)
	if !ok {
		return errNotWarm
	}
	l, err := install.Acquire(ctx, dir)
	if err != nil {
		return err
	}
	defer l.Unlock()
	inputs, lockData, err := warmInputs(args, dir, full)
	if err != nil || inputs != st.Inputs || lockData == nil || len(lockData) > lockfile.MaxFileSize {
		return errNotWarm
	}
	// The lock as the digest read it (ReadMemo would read it again).
	lock, err := lockfile.ParseMemo(filepath.Join(dir, lockfile.FileName), lockData, st.LockMemo)
	if err != nil || lock == nil {
		return errNotWarm
	}
	ok, err = install.UpToDate(lock, install.Options{Targets: st.Targets, Owner: st.Owner,
		Bounds: install.Bounds{Root: st.Root, Allow: st.Allow}, RecordMemo: st.RecordMemo})
	if err != nil || !ok {
		return errNotWarm
	}
	io.WriteString(e.Stderr, st.Stderr)
	_, err = io.WriteString(e.Stdout, st.Stdout)
	return err
}

// warmStampPath is where the stamp of a command line run in the current
// folder by the full program full lives: one per folder, command line
// and program, replaced by each no-op. Two installations of skillpm used
// in turn on one project (a system one and a newer one, or a build being
// measured against its base) each keep their own stamp, rather than each
// run finding the other's and handing off.
func warmStampPath(args []string, full string) (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	put(h, warmVersion)
	put(h, full)
	put(h, wd)
	for _, a := range args[1:] {
		put(h, a)
	}
	return filepath.Join(cache, "warm", hex.EncodeToString(h.Sum(nil))), nil
}

// warmInputs digests everything an install of the project in dir depends
// on besides its targets (which install.UpToDate checks): see the
// comment at the top of this file. It returns the bytes of skills.lock
// it digested too, nil when there is none.
func warmInputs(args []string, dir, full string) (digest string, lock []byte, err error) {
	h := sha256.New()
	put(h, warmVersion)
	wd, err := os.Getwd()
	if err != nil {
		return "", nil, err
	}
	put(h, wd)
	put(h, strconv.Itoa(len(args)))
	for _, a := range args[1:] {
		put(h, a)
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return !slices.Contains(warmEnv, name)
	})
	slices.Sort(env)
	put(h, strconv.Itoa(len(env)))
	for _, kv := range env {
		put(h, kv)
	}
	fi, err := os.Stat(full)
	if err != nil {
		return "", nil, err
	}
	put(h, full)
	put(h, strconv.FormatInt(fi.Size(), 10)+" "+strconv.FormatInt(fi.ModTime().UnixNano(), 10))
	put(h, dir)
	cfg, err := userConfigPath()
	if err != nil {
		cfg = ""
	}
	lockPath := filepath.Join(dir, lockfile.FileName)
	for _, p := range []string{filepath.Join(dir, project.FileName), lockPath, cfg, SystemConfigPath()} {
		put(h, p)
		if p == "" {
			continue
		}
		data, err := boundedfile.Read(p, maxWarmInput)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			put(h, "absent")
		case err != nil:
			return "", nil, err
		default:
			put(h, "present")
			h.Write(data)
			put(h, strconv.Itoa(len(data)))
			if p == lockPath {
				lock = data
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), lock, nil
}

// put adds s to h, length-prefixed.
func put(h io.Writer, s string) {
	io.WriteString(h, strconv.Itoa(len(s)))
	io.WriteString(h, ":")
	io.WriteString(h, s)
}
