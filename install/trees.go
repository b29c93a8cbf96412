package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/lockfile"
)

// Tree marks. An install record says which tree (HashTree's digest) a
// managed folder holds and which locked manifest that tree came from,
// but the record is a project file: a pull request can change a
// committed skill folder and the record's tree digest together, and the
// folder would then match its record while holding files no locked
// content unpacks to. Only a tree this skillpm unpacked from the locked
// content is known to be it. So prepare leaves, for every skill it
// materialises, an empty file under the memo folder's "trees" folder
// named by the sha256 of the skill's name, its manifest digest (which
// pins its content) and the tree it unpacked to, as manager's checked
// marks are; a record entry holds all three, so an entry of a version
// no longer locked can be looked up too.
//
// A folder that matches its record by its stat fingerprint was written,
// or checked, by skillpm on this machine. One that had to be read is
// trusted only when its tree is marked; otherwise it is staged and
// compared with the locked content (plan, checkFolders), replaced whole
// by an update (put keeps none of its files), or, for 'verify', checked
// against the locked content unpacked apart (LockedTree). The folder is
// trusted as much as the rest of the user's cache; deleting it only
// makes such folders be compared again.

// treesFolder is the folder of tree marks in a memo folder.
const treesFolder = "trees"

// treeMark names the mark saying that the content of the skill name at
// manifest unpacks to tree, in memoDir ("" when there is no memo
// folder).
func treeMark(memoDir, name, manifest, tree string) string {
	if memoDir == "" {
		return ""
	}
	h := sha256.New()
	for _, v := range []string{"skillpm locked tree v1", name, manifest, tree} {
		fmt.Fprintf(h, "%d:%s", len(v), v)
	}
	return filepath.Join(memoDir, treesFolder, hex.EncodeToString(h.Sum(nil)))
}

// treeMarked reports whether tree is known to be what the content of
// the skill name at manifest unpacks to.
func treeMarked(memoDir, name, manifest, tree string) bool {
	p := treeMark(memoDir, name, manifest, tree)
	if p == "" {
		return false
	}
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// markTree remembers that the content s locks unpacks to tree. Failing
// to is not an error: the folder is only compared again.
func markTree(memoDir string, s lockfile.Skill, tree string) {
	p := treeMark(memoDir, s.Name, s.Manifest, tree)
	if p == "" || treeMarked(memoDir, s.Name, s.Manifest, tree) {
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	if f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
		f.Close()
	}
}

// LockedTree returns the tree digest (HashTree's) of the content s
// locks, as src materialises it into a temporary folder that is removed
// after, and marks it in memoDir. 'verify' checks with it the folders
// whose records alone vouch for them (SkillStatus.Claimed).
func LockedTree(ctx context.Context, src Source, s lockfile.Skill, memoDir string) (string, error) {
	tmp, err := os.MkdirTemp("", "skillpm-tree-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, s.Name)
	if err := src.Materialize(ctx, s, dir); err != nil {
		return "", fmt.Errorf("unpack %s %s: %w", s.Name, s.Version, err)
	}
	t, err := HashTree(dir)
	if err != nil {
		return "", err
	}
	markTree(memoDir, s, t.Digest)
	return t.Digest, nil
}
