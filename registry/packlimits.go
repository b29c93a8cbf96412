package registry

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/skill"
)

// packCheck refuses, while a folder is packed, what Unpack would refuse
// under the same Limits: so a skill that publishes is a skill that
// installs. Unpack counts every archive entry (the root folder, folders,
// files and symlinks), the bytes and size of each regular file, and
// refuses entry names and symlink targets over maxPathLen bytes, entries
// nested more than maxDepth folders deep and names holding a backslash.
type packCheck struct {
	dir   string // the skill folder, for messages
	skill string // the skill's name (the layer's root folder)
	lim   Limits
}

// entry checks the entry rel (written as name in the layer) with fi,
// before it is counted into st.
func (c packCheck) entry(rel, name string, fi fs.FileInfo, st *LayerStats) error {
	if st.Files+1 > c.lim.MaxFiles {
		return c.errorf("", fmt.Sprintf("skill %q has more than %d files and folders, the most installers unpack (limits.max_files)", c.skill, c.lim.MaxFiles),
			"remove files from the skill folder, or split it into smaller skills joined by depends_on")
	}
	if fi.Mode().IsRegular() {
		if fi.Size() > c.lim.MaxFileSize {
			return c.errorf(rel, fmt.Sprintf("%s is %d bytes; installers unpack files of at most %d bytes (limits.max_file_size)", rel, fi.Size(), c.lim.MaxFileSize),
				"remove or shrink the file, or fetch it when the skill runs")
		}
		if st.Bytes+fi.Size() > c.lim.MaxBytes {
			return c.errorf("", fmt.Sprintf("skill %q holds more than %d bytes of files, the most installers unpack (limits.max_bytes)", c.skill, c.lim.MaxBytes),
				"remove large files from the skill folder, or split it into smaller skills joined by depends_on")
		}
	}
	entry := name
	if fi.IsDir() {
		entry += "/"
	}
	if len(entry) > maxPathLen {
		return c.errorf(rel, fmt.Sprintf("path of %d bytes in the layer; installers refuse paths over %d bytes", len(entry), maxPathLen), "shorten the file's name or folders")
	}
	if strings.Count(strings.TrimSuffix(entry, "/"), "/") > maxDepth {
		return c.errorf(rel, fmt.Sprintf("nested more than %d folders deep; installers refuse deeper entries", maxDepth), "move the file nearer the skill's top folder")
	}
	if strings.Contains(rel, `\`) {
		return c.errorf(rel, "name contains a backslash, which installers refuse (it is a separator on Windows)", "rename it without the backslash")
	}
	if ctl := nameControl(rel); ctl != "" {
		return c.errorf(rel, "name contains "+ctl+", which installers refuse", "rename it with printable UTF-8 characters")
	}
	return nil
}

// target checks the target of the symlink rel.
func (c packCheck) target(rel, target string) error {
	if len(target) > maxPathLen {
		return c.errorf(rel, fmt.Sprintf("symlink target of %d bytes; installers refuse targets over %d bytes", len(target), maxPathLen), "shorten the link's target")
	}
	if ctl := nameControl(target); ctl != "" {
		return c.errorf(rel, "symlink target contains "+ctl+", which installers refuse", "point the link at a file named with printable UTF-8 characters")
	}
	return nil
}

// errorf is an invalid skill error naming the folder (and rel in it,
// when one entry is at fault).
// The limits are each consumer's own (their user config's limits:), so
// the fix says so.
func (c packCheck) errorf(rel, msg, fix string) error {
	if strings.Contains(msg, "(limits.") {
		// Only those are settings; names and nesting are not.
		fix += " (raising limits: in the user config helps only where every installer raises it too)"
	}
	return &skill.Error{
		Path: filepath.Join(c.dir, filepath.FromSlash(rel)),
		Msg:  msg + "; it would publish, but no pull or install could unpack it",
		Fix:  fix,
	}
}
