package wellknown

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/skill"
)

// ErrExportSource: a folder given to Write is not a skill that can be
// published (no SKILL.md, an invalid name, two skills of one name).
var ErrExportSource = errors.New("cannot export")

// ErrLinkedTarget: the .well-known folder Write would write into is a
// symbolic link (or not a folder), so the tree would land elsewhere.
var ErrLinkedTarget = errors.New("export target leads elsewhere")

// WriteOptions control Write.
type WriteOptions struct {
	// ArchiveAll writes every skill as a .tar.gz archive, even one that
	// is a lone SKILL.md (written as type skill-md otherwise).
	ArchiveAll bool
}

// Write writes a static discovery tree for the skill folders dirs into
// root: root/.well-known/agent-skills/index.json (the 0.2.0 shape) and,
// per skill, either <name>/SKILL.md (type skill-md, for a skill that is
// one SKILL.md file) or <name>.tar.gz (type archive: a reproducible
// tar+gzip of the folder, files at its root, as registry.WriteLayer
// writes content layers). URLs in the index are relative, so the tree
// can be served from any origin and path. The tree is built beside its
// place and moved in whole: a failed Write leaves the previous tree.
func Write(ctx context.Context, root string, dirs []string, opts WriteOptions) (*Index, error) {
	wk := filepath.Join(root, ".well-known")
	// A .well-known that is a link (a checkout may carry one) would carry
	// the tree, and the removal of the previous one, out of root.
	if fi, err := os.Lstat(wk); err == nil && !fi.IsDir() {
		what := "not a folder"
		if fi.Mode()&os.ModeSymlink != 0 {
			what = "a symbolic link"
		}
		return nil, fmt.Errorf("%s: %w: it is %s; remove it, or export into another folder", wk, ErrLinkedTarget, what)
	}
	if err := os.MkdirAll(wk, 0o755); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(wk, ".agent-skills-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	if err := os.Chmod(stage, 0o755); err != nil {
		return nil, err
	}
	idx := &Index{Schema: SchemaURI, Skills: []Entry{}}
	byName := map[string]string{}
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, err := writeSkill(ctx, stage, dir, byName, opts)
		if err != nil {
			return nil, err
		}
		idx.Skills = append(idx.Skills, e)
	}
	sort.Slice(idx.Skills, func(i, j int) bool { return idx.Skills[i].Name < idx.Skills[j].Name })
	data, err := marshalIndex(idx)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(stage, "index.json"), data, 0o644); err != nil {
		return nil, err
	}
	final := filepath.Join(wk, "agent-skills")
	old := stage + ".old"
	hadOld := os.Rename(final, old) == nil
	if err := os.Rename(stage, final); err != nil {
		if hadOld {
			os.Rename(old, final)
		}
		return nil, err
	}
	if hadOld {
		os.RemoveAll(old)
	}
	idx.URL = filepath.Join(final, "index.json")
	return idx, nil
}

// marshalIndex is the index as served: $schema first, entries with
// relative URLs, two-space indented, a final newline.
func marshalIndex(idx *Index) ([]byte, error) {
	type entry struct {
		Name        string `json:"name"`
		Type        string `json:"type"`
		Description string `json:"description"`
		URL         string `json:"url"`
		Digest      string `json:"digest"`
		Version     string `json:"version,omitempty"`
	}
	out := struct {
		Schema string  `json:"$schema"`
		Skills []entry `json:"skills"`
	}{Schema: SchemaURI, Skills: []entry{}}
	for _, e := range idx.Skills {
		out.Skills = append(out.Skills, entry(e))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeSkill writes one skill's artifact into stage and returns its entry
// (with a URL relative to the index).
// byName maps the names written so far to their folders.
func writeSkill(ctx context.Context, stage, dir string, byName map[string]string, opts WriteOptions) (Entry, error) {
	s, err := skill.Load(dir)
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w: %w", dir, ErrExportSource, err)
	}
	name := s.Frontmatter.Name
	if !skill.ValidName(name) {
		return Entry{}, fmt.Errorf("%s: %w: %q is not a valid skill name; fix name: in its SKILL.md", dir, ErrExportSource, name)
	}
	if prev, dup := byName[name]; dup {
		return Entry{}, fmt.Errorf("%s: %w: skill %q is also at %s; give each name once", dir, ErrExportSource, name, prev)
	}
	byName[name] = dir
	desc := s.Frontmatter.Description
	if len(desc) > maxDescription {
		return Entry{}, fmt.Errorf("%s: %w: description is %d bytes, over %d", dir, ErrExportSource, len(desc), maxDescription)
	}
	e := Entry{Name: name, Description: desc, Version: s.Frontmatter.Version}
	if !opts.ArchiveAll && loneSkillMD(dir) {
		data, err := os.ReadFile(filepath.Join(dir, skill.FileName))
		if err != nil {
			return Entry{}, err
		}
		if err := os.Mkdir(filepath.Join(stage, name), 0o755); err != nil {
			return Entry{}, err
		}
		if err := os.WriteFile(filepath.Join(stage, name, skill.FileName), data, 0o644); err != nil {
			return Entry{}, err
		}
		sum := sha256.Sum256(data)
		e.Type, e.URL, e.Digest = TypeSkillMD, name+"/"+skill.FileName, "sha256:"+hex.EncodeToString(sum[:])
		return e, nil
	}
	f, err := os.OpenFile(filepath.Join(stage, name+".tar.gz"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return Entry{}, err
	}
	st, err := registry.WriteLayer(ctx, f, dir, "")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w: %w", dir, ErrExportSource, err)
	}
	e.Type, e.URL, e.Digest = TypeArchive, name+".tar.gz", st.Digest.String()
	return e, nil
}

// loneSkillMD reports whether dir holds nothing but a regular SKILL.md
// (a .git folder aside).
func loneSkillMD(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	n := 0
	for _, de := range entries {
		if de.Name() == ".git" {
			continue
		}
		if de.Name() != skill.FileName || !de.Type().IsRegular() {
			return false
		}
		n++
	}
	return n == 1
}
