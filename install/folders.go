package install

import (
	"time"

	"github.com/skillpm/skillpm/internal/memo"
)

// Folder memos. statListed lists each skill folder to see that it holds
// no entry the record does not (a file added at its top changes no
// stat the fingerprint covers), and that listing (an open, a getdents
// and a close) costs more than statting the folder's files. So prescan
// remembers, in the memo folder (Options.RecordMemo), each folder's own
// stat (device, inode, mode, mtime and ctime: folderSeen) as it was
// just before a listing found the names it should, and a later check
// stats the folder instead of listing it: while it has that stat, no
// entry of it was created, removed or renamed since. Any of those sets
// the folder's mtime and ctime to the time of the change; the user can
// set an mtime back, not a ctime. The stat is remembered only when its
// ctime is folderMargin older than the check (so a change just after
// the check, within the file system's timestamp granularity, cannot
// leave it the same), and only on the file systems statListed trusts
// to list in one call (ext4, XFS, btrfs, tmpfs), for a folder on the
// target's own device (not one another file system is mounted on). A
// memo entry holds for the record entry (its stat fingerprint) it was
// checked against. The memo is the user's cache, trusted as the rest
// of it is.

// folderMemoKind names folder memos.
const folderMemoKind = "skillpm skill folder memo v1"

// folderMargin is how much older than its check a folder's ctime must be
// for its stat to be remembered: far more than any file system's
// timestamp granularity.
const folderMargin = time.Second

// folderSeen is a skill folder's own stat, packed (seenOf); "" is none.
type folderSeen string

// folderKnown is what a folder memo holds of one skill folder: its stat
// (Seen) when its names matched the record entry with the stat
// fingerprint Stat.
type folderKnown struct {
	Stat string
	Seen folderSeen
}

// folderMemo maps a target's skill names to what is known of their
// folders.
type folderMemo map[string]folderKnown

// maxFolderMemo bounds a folder memo's size.
const maxFolderMemo = 16 << 20

// readFolderMemo returns the folder memo of target kept in memoDir, or
// nil.
func readFolderMemo(memoDir, target string) folderMemo {
	d, ok := memo.ReadDecoder(memo.Key(memoDir, folderMemoKind, []byte(target)), folderMemoKind, maxFolderMemo)
	if !ok {
		return nil
	}
	n := d.Count(3) // a name and two strings each
	if d.Bad {
		return nil
	}
	m := make(folderMemo, n)
	for range n {
		name, k := d.Str(), folderKnown{Stat: d.Str(), Seen: folderSeen(d.Str())}
		if d.Bad {
			return nil
		}
		m[name] = k
	}
	if !d.Done() {
		return nil
	}
	return m
}

// writeFolderMemo keeps m as the folder memo of target in memoDir.
// Failing to is not an error: the next check only lists the folders.
func writeFolderMemo(memoDir, target string, m folderMemo) {
	var e memo.Encoder
	e.Num(len(m))
	for name, k := range m {
		e.Str(name)
		e.Str(k.Stat)
		e.Str(string(k.Seen))
	}
	if len(e.B) <= maxFolderMemo {
		memo.Write(memo.Key(memoDir, folderMemoKind, []byte(target)), folderMemoKind, e.B)
	}
}
