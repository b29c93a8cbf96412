package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/source/giturl"
)

// A branch-tracked entry is locked at a commit the branch named once.
// The fetch is shallow and a server serves any commit it holds, so an
// edited lock could pin a commit of another branch (or of a pull
// request) under the branch's name. Check refuses that: the locked
// commit must be the branch's tip, or one of its ancestors among the
// last AncestorDepth commits (fetched, only when needed, in two
// bounded steps). A commit found on its branch is remembered in the
// cache, so a later check needs no network.

// AncestorDepth is how far back along a branch Check looks for a locked
// commit that is no longer the branch's tip.
const AncestorDepth = 2000

var _ source.Checker = (*Kind)(nil)

// Check checks, for a pin on a branch (Ref refs/heads/…), that its
// commit is on that branch; other pins pass (tags are checked by
// Export). A commit that is not, or a branch that is gone, is an error
// wrapping source.ErrPinMismatch.
func (s *Kind) Check(ctx context.Context, e source.Entry, pin lockfile.Source) error {
	if err := s.checkLocal(e); err != nil {
		return err
	}
	branch, ok := strings.CutPrefix(pin.Ref, "refs/heads/")
	if !ok || !IsCommit(pin.Commit) {
		return nil
	}
	mark := s.Client.branchMark(e.Location, pin.Ref, pin.Commit)
	if _, err := os.Stat(mark); err == nil {
		return nil
	}
	url := giturl.Redact(e.Location)
	refs, err := s.listRefs(ctx, e.Location)
	if err != nil {
		return wrapErr(fmt.Errorf("%s: check that commit %s is on the branch %s of %s: %w", e.Name, short(pin.Commit), branch, url, err))
	}
	tip := ""
	for _, r := range refs {
		if r.Name == pin.Ref {
			tip = r.Commit
		}
	}
	if tip == "" {
		return fmt.Errorf("%s: the branch %s of %s is gone, and skills.lock pins commit %s from it: %w; point ref at an existing branch, then run 'skillpm update %s'", e.Name, branch, url, pin.Commit, source.ErrPinMismatch, e.Name)
	}
	if tip != pin.Commit {
		on, err := s.Client.onBranch(ctx, e.Location, pin.Ref, pin.Commit)
		if err != nil {
			return wrapErr(fmt.Errorf("%s: check that commit %s is on the branch %s of %s: %w", e.Name, short(pin.Commit), branch, url, err))
		}
		if !on {
			return fmt.Errorf("%s: skills.lock pins commit %s as the branch %s of %s, but it is not on that branch (not among its last %d commits): the lock was edited, or the branch force-pushed: %w; check the change, then run 'skillpm update %s'",
				e.Name, pin.Commit, branch, url, AncestorDepth, source.ErrPinMismatch, e.Name)
		}
	}
	// Best effort: without the mark, the next check asks the server.
	if _, unlock, err := s.Client.repo(ctx, e.Location); err == nil {
		if os.MkdirAll(filepath.Dir(mark), 0o755) == nil {
			if f, err := os.Create(mark); err == nil {
				f.Close()
			}
		}
		unlock()
	}
	return nil
}

// branchMark is the file that records commit as found on ref of url.
func (c *Client) branchMark(url, ref, commit string) string {
	sum := sha256.Sum256([]byte(ref + "\x00" + commit))
	return filepath.Join(c.dirOf(url), "skillpm-on-branch", hex.EncodeToString(sum[:16]))
}

// onBranch reports whether commit is ref's tip or one of its ancestors
// among its last AncestorDepth commits: ref's history is fetched (no
// blobs where the server allows) 100 commits deep, then AncestorDepth,
// under one deadline (Client.Timeout).
func (c *Client) onBranch(ctx context.Context, url, ref, commit string) (bool, error) {
	ctx, cancel := c.opContext(ctx)
	defer cancel()
	dir, unlock, err := c.repo(ctx, url)
	if err != nil {
		return false, err
	}
	defer unlock()
	local := "refs/skillpm/heads/" + strings.TrimPrefix(ref, "refs/heads/")
	for _, depth := range []int{100, AncestorDepth} {
		if _, err := c.runNet(ctx, dir, url, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
			fmt.Sprintf("--depth=%d", depth), "--filter=blob:none", "origin", "+"+ref+":"+local); err != nil {
			return false, fmt.Errorf("fetch %s: %w", strings.TrimPrefix(ref, "refs/heads/"), err)
		}
		cmd := c.command(ctx, dir, "merge-base", "--is-ancestor", commit, local)
		err := cmd.Run()
		if err == nil {
			return true, nil
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			if ctx.Err() != nil {
				return false, fmt.Errorf("%w: git merge-base timed out after %s", ErrFailed, c.timeout())
			}
			return false, c.startError(err)
		}
		// 1: not an ancestor in what was fetched; 128: the commit is not
		// there at all. Either way, look deeper.
	}
	return false, nil
}
