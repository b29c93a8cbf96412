package git

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// A monorepo of small skills is exported with one git process, not one
// per skill: the first Export of a commit whose blobs were all fetched
// (Fetch's whole-tree prefetch: at most maxWholeTree files) and that
// holds no .gitattributes (whose export-ignore a per-folder archive
// applies only inside the folder) reads the
// whole commit with one 'git archive' into memory, bounded by
// maxTreeBytes, and each folder is then cut from it and streamed through
// registry.Unpack, with the same checks as a per-folder archive. A
// commit too large to hold falls back to one 'git archive' per folder.

// maxTreeBytes bounds the archive of a whole commit held in memory.
const maxTreeBytes = 64 << 20

// tree is one commit's archive, read once per Client.
type tree struct {
	once    sync.Once
	entries []treeEntry
	ok      bool // false: too large or unreadable, export per folder
}

type treeEntry struct {
	hdr  tar.Header
	data []byte
}

// treeOf returns commit's whole archive, reading it on first use; ok is
// false when it could not be held (too large, or git failed), for the
// caller to export per folder.
func (c *Client) treeOf(ctx context.Context, dir, commit string) ([]treeEntry, bool) {
	c.mu.Lock()
	if c.trees == nil {
		c.trees = map[string]*tree{}
	}
	t := c.trees[dir+"@"+commit]
	if t == nil {
		t = &tree{}
		c.trees[dir+"@"+commit] = t
	}
	c.mu.Unlock()
	t.once.Do(func() {
		entries, err := c.readTree(ctx, dir, commit)
		t.entries, t.ok = entries, err == nil
	})
	return t.entries, t.ok
}

var errTreeTooLarge = errors.New("commit too large to hold")

// readTree reads 'git archive COMMIT' into memory, refusing more than
// maxTreeBytes of content or maxWholeTree+maxWholeTree entries (files
// and folders).
func (c *Client) readTree(ctx context.Context, dir, commit string) ([]treeEntry, error) {
	ctx, cancel := c.opContext(ctx)
	defer cancel()
	// The root tree, not the commit: no export-subst, no commit comment.
	cmd := c.command(ctx, dir, "archive", "--format=tar", commit+":")
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 64 << 10}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, c.startError(err)
	}
	entries, rerr := readEntries(out)
	if rerr != nil {
		cancel() // stop git; its output is no longer read
	}
	io.Copy(io.Discard, out)
	werr := cmd.Wait()
	if rerr != nil {
		return nil, rerr
	}
	if werr != nil {
		return nil, fmt.Errorf("%w: archive: %s", ErrFailed, strings.TrimSpace(stderr.String()))
	}
	return entries, nil
}

func readEntries(r io.Reader) ([]treeEntry, error) {
	tr := tar.NewReader(r)
	var entries []treeEntry
	total := int64(0)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return entries, nil
		}
		if err != nil {
			return nil, err
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue // git's commit id comment
		}
		total += hdr.Size
		if hdr.Size < 0 || total > maxTreeBytes || len(entries) >= 2*maxWholeTree {
			return nil, errTreeTooLarge
		}
		data, err := io.ReadAll(io.LimitReader(tr, hdr.Size))
		if err != nil {
			return nil, err
		}
		entries = append(entries, treeEntry{hdr: *hdr, data: data})
	}
}

// folderTar writes, as a plain tar, the entries of entries under subdir
// ("" for all) with subdir's prefix removed, as 'git archive
// COMMIT:SUBDIR' would; found is false when subdir holds nothing.
func folderTar(entries []treeEntry, subdir string) (buf *bytes.Buffer, found bool, err error) {
	prefix := ""
	if subdir != "" {
		prefix = strings.TrimSuffix(subdir, "/") + "/"
	}
	buf = &bytes.Buffer{}
	tw := tar.NewWriter(buf)
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.hdr.Name, prefix)
		if !ok || name == "" {
			continue
		}
		found = true
		h := &tar.Header{
			Typeflag: e.hdr.Typeflag, Name: name, Linkname: e.hdr.Linkname,
			Mode: e.hdr.Mode, Size: e.hdr.Size, ModTime: e.hdr.ModTime,
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, false, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, false, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, false, err
	}
	return buf, found, nil
}
