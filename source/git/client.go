package git

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/skillpm/skillpm/internal/lazyre"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source/giturl"
)

// Errors a caller tells apart; each is wrapped with the source named.
var (
	// ErrNoGit: the git program is not installed.
	ErrNoGit = errors.New("git is not installed")
	// ErrNotFound: the repository, ref or folder does not exist.
	ErrNotFound = errors.New("not found")
	// ErrFailed: git could not read the repository (network, a server
	// error); its own message is kept.
	ErrFailed = errors.New("git failed")
	// ErrAuth: the server wants credentials that the user's git setup
	// (credential helpers, GIT_ASKPASS, SSH agent) did not give, or
	// refused them.
	ErrAuth = errors.New("git: credentials missing or refused")
	// ErrLocalOutside: a skills.yaml names a file:// repository outside
	// its project folder and outside the folders the user allows.
	ErrLocalOutside = errors.New("local repository outside the project")
)

// DefaultTimeout bounds one git operation when Client.Timeout is zero.
const DefaultTimeout = 5 * time.Minute

// maxListing bounds what is read of ls-remote and ls-tree output: a
// hostile repository with a million refs or files is refused, not read.
const maxListing = 32 << 20

// Client runs git for skillpm. The zero value is usable only after
// CacheDir is set.
type Client struct {
	// Git is the git program; "" looks up "git" on PATH.
	Git string
	// CacheDir holds one bare repository per remote URL, so a commit
	// fetched once is never fetched again.
	CacheDir string
	// Timeout bounds each operation (listing a remote's refs, one
	// Fetch, one Export, a branch check), all its git commands
	// together, whatever the transport; 0 means DefaultTimeout.
	Timeout time.Duration
	// Stall fails a transfer over HTTP(S) that moves less than 1 KiB/s
	// for this long (git's http.lowSpeedLimit/lowSpeedTime), as the
	// registry client's stall timeout does, and an SSH connection whose
	// server stops answering for this long (ServerAliveInterval); 0
	// means 30s.
	Stall time.Duration
	// Connect bounds an SSH connection's set-up (ssh's ConnectTimeout);
	// 0 means 10s. It is passed through GIT_SSH_COMMAND only when the
	// user has not chosen their own ssh command (GIT_SSH_COMMAND,
	// GIT_SSH or core.sshCommand). git has no connect timeout for
	// HTTP(S) or git://: Timeout bounds those.
	Connect time.Duration
	// Env is added to git's environment (tests set GIT_CONFIG_GLOBAL).
	Env []string
	// Limits bound what Export writes, as for OCI layers.
	Limits registry.Limits

	mu    sync.Mutex
	locks map[string]*sync.RWMutex // per cached repository: fetches write, reads share
	whole map[string]bool          // dir+commit whose blobs were all fetched: has a .gitattributes
	trees map[string]*tree         // dir+commit read whole (tree.go)
	ssh   sshOnce                  // the ssh command's bounds (bounds.go)
}

// Ref is one of a remote's tags or branches.
type Ref struct {
	Name   string // "refs/tags/v1.2.0", "refs/heads/main"
	Commit string // the commit it points at (annotated tags peeled)
}

// Short returns the ref's name without refs/tags/ or refs/heads/.
func (r Ref) Short() string {
	if s, ok := strings.CutPrefix(r.Name, "refs/tags/"); ok {
		return s
	}
	return strings.TrimPrefix(r.Name, "refs/heads/")
}

// IsTag reports whether the ref is a tag.
func (r Ref) IsTag() bool { return strings.HasPrefix(r.Name, "refs/tags/") }

var commitRE = lazyre.New(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// IsCommit reports whether s is a full commit id (SHA-1 or SHA-256).
func IsCommit(s string) bool { return commitRE().MatchString(s) }

// Refs lists the remote's tags and branches, annotated tags peeled to
// their commits, sorted by name.
func (c *Client) Refs(ctx context.Context, url string) ([]Ref, error) {
	out, err := c.runNet(ctx, "", url, "ls-remote", "--tags", "--heads", "--", url)
	if err != nil {
		return nil, fmt.Errorf("list refs of %s: %w", giturl.Redact(url), err)
	}
	byName := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		commit, name, ok := strings.Cut(sc.Text(), "\t")
		if !ok || !IsCommit(commit) {
			continue
		}
		if base, peeled := strings.CutSuffix(name, "^{}"); peeled {
			byName[base] = commit // the peeled commit wins over the tag object
			continue
		}
		if _, seen := byName[name]; !seen {
			byName[name] = commit
		}
	}
	refs := make([]Ref, 0, len(byName))
	for n, cm := range byName {
		refs = append(refs, Ref{Name: n, Commit: cm})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
	return refs, nil
}

// Fetch makes commit available in the cache of url's repository: a
// shallow fetch of that one commit, without blobs where the server
// supports partial clone (their folder's blobs are fetched by Export).
// A commit already cached is not fetched again: a warm fetch needs no
// network.
func (c *Client) Fetch(ctx context.Context, url, commit string) error {
	if !IsCommit(commit) {
		return fmt.Errorf("fetch %s: %q is not a full commit id", giturl.Redact(url), commit)
	}
	ctx, cancel := c.opContext(ctx)
	defer cancel()
	if dir, runlock, err := c.repoRead(ctx, url); err == nil {
		cached := c.has(ctx, dir, commit)
		runlock()
		if cached {
			return nil
		}
	}
	dir, unlock, err := c.repo(ctx, url)
	if err != nil {
		return err
	}
	defer unlock()
	if c.has(ctx, dir, commit) {
		return nil
	}
	if _, err := c.runNet(ctx, dir, url, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
		"--depth=1", "--filter=blob:none", "origin", commit); err != nil {
		if msg := err.Error(); strings.Contains(msg, "not our ref") || strings.Contains(msg, "couldn't find remote ref") {
			return fmt.Errorf("fetch %s at %s: commit %w (force-pushed away, or never there)", giturl.Redact(url), commit, ErrNotFound)
		}
		return fmt.Errorf("fetch %s at %s: %w", giturl.Redact(url), commit, err)
	}
	if _, err := c.run(ctx, dir, "update-ref", "refs/skillpm/"+commit, commit); err != nil {
		return fmt.Errorf("fetch %s: commit %s %w after fetching it (%v)", giturl.Redact(url), commit, ErrNotFound, err)
	}
	// A small tree (the common monorepo of skills) gets all its blobs
	// now, in one request, rather than one skill at a time.
	if err := c.prefetch(ctx, dir, url, commit, "", maxWholeTree); err != nil {
		return fmt.Errorf("fetch %s at %s: %w", giturl.Redact(url), commit, err)
	}
	return nil
}

// isWhole reports whether all of commit's blobs were fetched in this
// run; markWhole records it, and whether the commit holds a
// .gitattributes anywhere (which 'git archive' of the whole commit would
// apply to folders that a per-folder archive reads without it, so such
// a commit is exported per folder: tree.go).
func (c *Client) isWhole(dir, commit string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.whole[dir+"@"+commit]
	return ok
}

func (c *Client) markWhole(dir, commit string, attrs bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.whole == nil {
		c.whole = map[string]bool{}
	}
	c.whole[dir+"@"+commit] = attrs
}

// exportWhole reports whether Export may cut commit's folders from one
// archive of the whole commit (tree.go).
func (c *Client) exportWhole(dir, commit string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	attrs, ok := c.whole[dir+"@"+commit]
	return ok && !attrs
}

// maxWholeTree is the most files a commit may have for Fetch to fetch
// all its blobs at once; a larger repository's blobs are fetched per
// exported folder.
const maxWholeTree = 5000

// prefetch fetches, in batched requests, the blobs under subdir ("" for
// all) of commit that a partial fetch left out, when there are at most
// limit files there (0: no limit). Without it, git would fetch each
// missing blob in a request of its own while exporting.
func (c *Client) prefetch(ctx context.Context, dir, url, commit, subdir string, limit int) error {
	args := []string{"ls-tree", "-r", "-z", commit}
	if subdir != "" {
		args = append(args, "--", subdir+"/")
	}
	out, err := c.run(ctx, dir, args...)
	if err != nil {
		return err
	}
	blobs := map[string]bool{}
	attrs := false
	for _, e := range strings.Split(string(out), "\x00") {
		meta, name, ok := strings.Cut(e, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "blob" {
			blobs[f[2]] = true
			attrs = attrs || path.Base(name) == ".gitattributes"
		}
	}
	if limit > 0 && len(blobs) > limit {
		return nil
	}
	if subdir == "" {
		defer func() { c.markWhole(dir, commit, attrs) }()
	}
	if len(blobs) == 0 {
		return nil
	}
	out, err = c.run(ctx, dir, "rev-list", "--objects", "--missing=print", "--no-object-names", commit)
	if err != nil {
		return err
	}
	var missing []string
	for _, line := range strings.Split(string(out), "\n") {
		if oid, ok := strings.CutPrefix(line, "?"); ok && blobs[oid] {
			missing = append(missing, oid)
		}
	}
	for len(missing) > 0 {
		n := min(len(missing), 1000)
		args := append([]string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--filter=blob:none", "origin"}, missing[:n]...)
		if _, err := c.runNet(ctx, dir, url, args...); err != nil {
			return err
		}
		missing = missing[n:]
	}
	return nil
}

// SkillDirs lists the folders under subdir ("" for the root) of commit
// that hold a SKILL.md, slash-separated and sorted. Commit must have been
// fetched.
func (c *Client) SkillDirs(ctx context.Context, url, commit, subdir string) ([]string, error) {
	dir, unlock, err := c.repoRead(ctx, url)
	if err != nil {
		return nil, err
	}
	defer unlock()
	args := []string{"ls-tree", "-r", "--name-only", "-z", commit}
	if subdir != "" {
		args = append(args, "--", subdir+"/")
	}
	out, err := c.run(ctx, dir, args...)
	if err != nil {
		return nil, fmt.Errorf("list %s at %s: %w", giturl.Redact(url), commit, err)
	}
	var dirs []string
	for _, name := range strings.Split(string(out), "\x00") {
		if path.Base(name) == "SKILL.md" {
			dirs = append(dirs, path.Dir(name))
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}

// Export writes the folder subdir ("" for the root) of commit into dst,
// which must not exist, through registry.Unpack: the same checks as an
// OCI layer (no traversal, no escaping links, no devices, size and file
// limits). Commit must have been fetched; blobs missing from a partial
// clone are fetched now.
func (c *Client) Export(ctx context.Context, url, commit, subdir, dst string) error {
	ctx, cancel := c.opContext(ctx)
	defer cancel()
	dir, unlock, err := c.repoRead(ctx, url)
	if err != nil {
		return err
	}
	// "COMMIT:" is the root tree; COMMIT alone would be the commit.
	treeish := commit + ":" + subdir
	if !c.isWhole(dir, commit) {
		// Fetch the folder's missing blobs in one request, holding the
		// repository for writing.
		unlock()
		_, wunlock, err := c.repo(ctx, url)
		if err != nil {
			return err
		}
		err = c.prefetch(ctx, dir, url, commit, subdir, 0)
		wunlock()
		if err != nil {
			return fmt.Errorf("%s at %s: %w", giturl.Redact(url), commit, err)
		}
		if dir, unlock, err = c.repoRead(ctx, url); err != nil {
			return err
		}
	}
	defer unlock()
	if c.exportWhole(dir, commit) {
		if entries, ok := c.treeOf(ctx, dir, commit); ok {
			buf, found, err := folderTar(entries, subdir)
			if err != nil {
				return fmt.Errorf("%s at %s: %w", giturl.Redact(url), commit, err)
			}
			if !found {
				return fmt.Errorf("%s at %s: folder %q %w", giturl.Redact(url), commit, subdir, ErrNotFound)
			}
			if _, err := registry.Unpack(ctx, buf, dst, registry.UnpackOptions{Limits: c.Limits}); err != nil {
				return fmt.Errorf("%s at %s: %w", giturl.Redact(url), commit, err)
			}
			return nil
		}
	}
	cmd := c.command(ctx, dir, "archive", "--format=tar", treeish) // no gzip: it is read on the spot
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 64 << 10}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return c.startError(err)
	}
	_, uerr := registry.Unpack(ctx, out, dst, registry.UnpackOptions{Limits: c.Limits})
	if uerr != nil {
		cancel() // stop git; its output is no longer read
	}
	io.Copy(io.Discard, out)
	werr := cmd.Wait()
	if msg := stderr.String(); werr != nil && (strings.Contains(msg, "not a valid object name") || strings.Contains(msg, "not a tree object")) {
		os.RemoveAll(dst)
		return fmt.Errorf("%s at %s: folder %q %w", giturl.Redact(url), commit, subdir, ErrNotFound)
	}
	if uerr != nil {
		return fmt.Errorf("%s at %s: %w", giturl.Redact(url), commit, uerr)
	}
	if werr != nil {
		return fmt.Errorf("%s at %s: archive: %w: %s", giturl.Redact(url), commit, ErrFailed, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// repo returns the cached bare repository for url, creating it, and
// holds its lock until unlock is called: two skills of one monorepo
// fetch into one repository one after the other, in this process and
// across skillpm processes (lockCache).
func (c *Client) repo(ctx context.Context, url string) (string, func(), error) {
	if c.CacheDir == "" {
		return "", nil, errors.New("git: no cache folder")
	}
	dir := c.dirOf(url)
	c.mu.Lock()
	if c.locks == nil {
		c.locks = map[string]*sync.RWMutex{}
	}
	l := c.locks[dir]
	if l == nil {
		l = &sync.RWMutex{}
		c.locks[dir] = l
	}
	c.mu.Unlock()
	l.Lock()
	if err := os.MkdirAll(c.CacheDir, 0o755); err != nil {
		l.Unlock()
		return "", nil, err
	}
	unlockCache, err := lockCache(ctx, dir, true)
	if err != nil {
		l.Unlock()
		return "", nil, err
	}
	unlock := func() { unlockCache(); l.Unlock() }
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		tmp, err := os.MkdirTemp(c.CacheDir, ".init-")
		if err == nil {
			_, err = c.run(ctx, tmp, "init", "--quiet", "--bare", ".")
		}
		if err == nil {
			// The remote, written directly rather than by two more git
			// processes: a promisor, so that a partial fetch's missing
			// blobs are fetched on demand.
			err = addOrigin(filepath.Join(tmp, "config"), url)
		}
		if err == nil {
			err = os.Rename(tmp, dir)
		}
		if err != nil {
			os.RemoveAll(tmp)
			unlock()
			return "", nil, fmt.Errorf("git cache for %s: %w", giturl.Redact(url), err)
		}
	}
	clearStaleLocks(dir)
	return dir, unlock, nil
}

// clearStaleLocks removes the lock files a git process killed while
// fetching into dir left behind (shallow.lock, a ref's .lock ...): with
// the repository's exclusive lock held, no git process of skillpm's is
// writing to it, and a leftover would fail every later fetch ("Unable
// to create '…/shallow.lock': File exists").
func clearStaleLocks(dir string) {
	for _, pattern := range []string{"*.lock", "refs/*/*.lock", "refs/*/*/*.lock"} {
		stale, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, p := range stale {
			os.Remove(p)
		}
	}
}

// dirOf is the cached bare repository of url.
func (c *Client) dirOf(url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(c.CacheDir, hex.EncodeToString(sum[:16])+".git")
}

// addOrigin appends the remote "origin" for url to a repository's
// config file, the value quoted as git-config(1) says.
func addOrigin(config, url string) error {
	if strings.ContainsAny(url, "\n\r\x00") {
		return fmt.Errorf("%q is not a valid repository URL", giturl.Redact(url))
	}
	q := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(url)
	f, err := os.OpenFile(config, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "[remote \"origin\"]\n\turl = \"%s\"\n\tpromisor = true\n", q)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// repoRead is repo for commands that only read the cached repository:
// they run side by side.
func (c *Client) repoRead(ctx context.Context, url string) (string, func(), error) {
	dir, unlock, err := c.repo(ctx, url) // creates it when need be
	if err != nil {
		return "", nil, err
	}
	unlock()
	c.mu.Lock()
	l := c.locks[dir]
	c.mu.Unlock()
	l.RLock()
	unlockCache, err := lockCache(ctx, dir, false)
	if err != nil {
		l.RUnlock()
		return "", nil, err
	}
	return dir, func() { unlockCache(); l.RUnlock() }, nil
}

// has reports whether commit was fetched into dir: Fetch records each
// commit under refs/skillpm/, which also keeps it from garbage
// collection. Looking up a ref, unlike reading the object, never makes a
// partial clone fetch what it lacks.
func (c *Client) has(ctx context.Context, dir, commit string) bool {
	if _, err := os.Stat(filepath.Join(dir, "refs", "skillpm", commit)); err == nil {
		return true // a loose ref: no git process needed
	}
	if !c.mayPack(dir) {
		return false // no packed refs, no reftable: the loose ref is all
	}
	_, err := c.run(ctx, dir, "show-ref", "--verify", "--quiet", "refs/skillpm/"+commit)
	return err == nil
}

// mayPack reports whether dir may keep refs elsewhere than in loose
// files: a packed-refs file or a reftable (skillpm never packs its refs,
// but a user's git may have).
func (c *Client) mayPack(dir string) bool {
	for _, f := range []string{"packed-refs", "reftable"} {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}
