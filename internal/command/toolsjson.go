package command

import (
	"github.com/skillpm/skillpm/internal/atomicfile"

	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/skill"
)

// toolsJSONResult is 'skillpm tools --write-tools-json DIR --json'.
type toolsJSONResult struct {
	Path    string `json:"path"`
	Tools   int    `json:"tools"`
	Changed bool   `json:"changed"`
}

// writeToolsJSON regenerates DIR/tools.json from DIR/SKILL.md's
// frontmatter tools. The file is replaced atomically (a temporary file in
// DIR, then a rename) and left alone when it already has those bytes.
func writeToolsJSON(e *Env, dir string) error {
	s, err := skill.Load(dir)
	if err != nil {
		return err
	}
	data, err := s.ToolsJSON()
	if err != nil {
		return fmt.Errorf("%w; declare the tools in SKILL.md's 'tools:' (the canonical source) and run this again", err)
	}
	path := filepath.Join(s.Dir, skill.ToolsFileName)
	res := toolsJSONResult{Path: path, Tools: len(s.Tools)}
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, data):
	case err == nil || errors.Is(err, fs.ErrNotExist):
		if err := replaceFile(path, data); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		res.Changed = true
	default:
		return fmt.Errorf("read %s: %w", path, err)
	}
	if e.JSON {
		return WriteJSON(e.Stdout, res)
	}
	if res.Changed {
		fmt.Fprintf(e.Stdout, "wrote %s (%d tools from SKILL.md)\n", TermLine(path), res.Tools)
	} else {
		fmt.Fprintf(e.Stdout, "%s is up to date (%d tools)\n", TermLine(path), res.Tools)
	}
	return nil
}

// replaceFile writes data to path atomically (internal/atomicfile: a
// temporary file beside it, synced, renamed), so a reader never sees half
// of it; a path that is not a regular file is left alone.
func replaceFile(path string, data []byte) error {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; remove it first", path)
	}
	return atomicfile.WriteFile(path, data, 0o644)
}
