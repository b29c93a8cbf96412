package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillpm/skillpm/agent"
)

// The MCP Skills Extension (SEP-2640).
const (
	// SkillsExtension is the extension identifier advertised in the
	// initialize result's capabilities.extensions.
	SkillsExtension = "io.modelcontextprotocol/skills"
	// IndexURI is the resource that enumerates the served skills.
	IndexURI = "skill://index.json"
	// DiscoverySchema is the $schema of IndexURI: the Agent Skills
	// discovery index, version 0.2.0.
	DiscoverySchema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
)

// Defaults for zero ResourceOptions fields.
const (
	// DefaultMaxFiles is how many files of one skill are served.
	DefaultMaxFiles = 1000
	// DefaultMaxFileSize is the largest file served, in bytes.
	DefaultMaxFileSize = 8 << 20
)

// ResourceOptions bounds what NewResources serves. The zero value is ready
// to use.
type ResourceOptions struct {
	// MaxFiles is how many files of one skill are served; the rest are
	// left out and reported through Warn. If <= 0, DefaultMaxFiles.
	MaxFiles int
	// MaxFileSize is the largest file served, in bytes; larger files are
	// left out and reported. If <= 0, DefaultMaxFileSize.
	MaxFileSize int64
	// Warn, if set, is told about files left out.
	Warn func(msg string)
}

// IndexEntry is one skill in the skill://index.json discovery index.
type IndexEntry struct {
	Type        string `json:"type"` // always "skill-md"
	Name        string `json:"name"`
	Description string `json:"description"`
	URL         string `json:"url"` // skill://<name>/SKILL.md
}

// Index is the skill://index.json document.
type Index struct {
	Schema string       `json:"$schema"`
	Skills []IndexEntry `json:"skills"`
}

// SkillURI returns the skill:// URI of file rel (slash-separated, relative
// to the skill folder) of the named skill.
func SkillURI(name, rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "skill://" + url.PathEscape(name) + "/" + strings.Join(segs, "/")
}

// servedFile is one file resource.
type servedFile struct {
	dir, rel, mime string
	size           int64
	skillDesc      string // the skill's description, given on SKILL.md
}

// skillStamp tells whether a skill folder changed since it was listed: an
// install replaces the folder (a new modification time) or rewrites
// SKILL.md.
type skillStamp struct {
	dir           string
	dirMod, mdMod time.Time
	mdSize        int64
	files         []servedFile
}

// Resources serves the files of a set of skills as MCP resources under
// skill://, plus skill://index.json, and keeps them up to date with Sync.
type Resources struct {
	opts ResourceOptions

	mu     sync.Mutex
	served map[string]servedFile  // by URI
	stamps map[string]*skillStamp // by skill name
	sig    string                 // names, descriptions and folders last synced
	index  []byte
}

// NewResources returns an empty resource set.
func NewResources(opts ResourceOptions) *Resources {
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	return &Resources{opts: opts, served: map[string]servedFile{}, stamps: map[string]*skillStamp{}}
}

// Advertise adds the skills extension to caps (the server's capabilities
// option) and returns it; a nil caps gets the SDK's default (logging).
func Advertise(caps *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	if caps == nil {
		caps = &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}
	}
	caps.AddExtension(SkillsExtension, map[string]any{})
	caps.Resources = &mcp.ResourceCapabilities{ListChanged: true}
	return caps
}

// Sync makes s serve exactly the files of skills: resources of new or
// changed files are added, those of removed ones removed, and the index
// rewritten when it changed. The SDK tells connected clients with
// notifications/resources/list_changed. Sync reports whether anything
// changed. A skill folder is listed again only when it or its SKILL.md
// changed (installs replace the whole folder).
func (r *Resources) Sync(s *mcp.Server, skills []*agent.Skill) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	stamps := make(map[string]*skillStamp, len(skills))
	var sig strings.Builder
	relisted := false
	for _, sk := range skills {
		st, fresh := r.stamp(sk)
		stamps[sk.Name] = st
		relisted = relisted || fresh
		fmt.Fprintf(&sig, "%s\x00%s\x00%s\x00", sk.Name, sk.Description, sk.Dir)
	}
	r.stamps = stamps
	if !relisted && sig.String() == r.sig && r.index != nil {
		return false // the common case of a poll: one stat per folder and SKILL.md
	}
	r.sig = sig.String()
	want := map[string]servedFile{}
	idx := Index{Schema: DiscoverySchema, Skills: []IndexEntry{}}
	for _, sk := range skills {
		for _, f := range stamps[sk.Name].files {
			f.skillDesc = sk.Description
			want[SkillURI(sk.Name, f.rel)] = f
		}
		idx.Skills = append(idx.Skills, IndexEntry{Type: "skill-md", Name: sk.Name, Description: sk.Description, URL: SkillURI(sk.Name, "SKILL.md")})
	}
	sort.Slice(idx.Skills, func(i, j int) bool { return idx.Skills[i].Name < idx.Skills[j].Name })

	changed := false
	var gone []string
	for uri := range r.served {
		if _, ok := want[uri]; !ok {
			gone = append(gone, uri)
		}
	}
	if len(gone) > 0 {
		sort.Strings(gone)
		s.RemoveResources(gone...)
		changed = true
	}
	uris := make([]string, 0, len(want))
	for uri := range want {
		uris = append(uris, uri)
	}
	sort.Strings(uris)
	for _, uri := range uris {
		f := want[uri]
		if old, ok := r.served[uri]; ok && old == f {
			continue
		}
		res := &mcp.Resource{URI: uri, Name: f.rel, MIMEType: f.mime, Size: f.size}
		if f.rel == "SKILL.md" {
			res.Description = f.skillDesc
		}
		s.AddResource(res, r.readFile(uri))
		changed = true
	}
	r.served = want

	body, _ := json.MarshalIndent(idx, "", "  ") // plain strings: cannot fail
	body = append(body, '\n')
	if !bytes.Equal(body, r.index) {
		r.index = body
		s.AddResource(&mcp.Resource{URI: IndexURI, Name: "index.json", Title: "Skills served by skillpm", MIMEType: "application/json", Size: int64(len(body))}, r.readIndex)
		changed = true
	}
	return changed
}

// stamp returns the listing of sk's folder, reusing the last one when the
// folder and its SKILL.md did not change; fresh says it listed again.
func (r *Resources) stamp(sk *agent.Skill) (st *skillStamp, fresh bool) {
	st = &skillStamp{dir: sk.Dir}
	if fi, err := os.Stat(sk.Dir); err == nil {
		st.dirMod = fi.ModTime()
	}
	if fi, err := os.Stat(filepath.Join(sk.Dir, "SKILL.md")); err == nil {
		st.mdMod, st.mdSize = fi.ModTime(), fi.Size()
	}
	if old := r.stamps[sk.Name]; old != nil && old.dir == st.dir && old.dirMod.Equal(st.dirMod) && old.mdMod.Equal(st.mdMod) && old.mdSize == st.mdSize {
		st.files = old.files
		return st, false
	}
	st.files = r.list(sk)
	return st, true
}

// list walks a skill folder for the files to serve. Symbolic links are
// followed only to regular files inside the folder; anything else (links
// out of the folder, devices, files over the size limit, files past the
// count limit) is left out and reported.
func (r *Resources) list(sk *agent.Skill) []servedFile {
	root, err := os.OpenRoot(sk.Dir)
	if err != nil {
		r.opts.Warn(fmt.Sprintf("skill %s: cannot open %s: %v", sk.Name, sk.Dir, err))
		return nil
	}
	defer root.Close()
	var files []servedFile
	_ = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			r.opts.Warn(fmt.Sprintf("skill %s: not serving %s: %v", sk.Name, p, err))
			return nil
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir // .git and the like are no part of a skill
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		fi, err := root.Stat(p) // follows links, but never out of the root
		if err != nil {
			r.opts.Warn(fmt.Sprintf("skill %s: not serving %s: %v", sk.Name, p, err))
			return nil
		}
		if !fi.Mode().IsRegular() {
			r.opts.Warn(fmt.Sprintf("skill %s: not serving %s: not a regular file", sk.Name, p))
			return nil
		}
		if fi.Size() > r.opts.MaxFileSize {
			r.opts.Warn(fmt.Sprintf("skill %s: not serving %s: %d bytes, over the %d-byte limit", sk.Name, p, fi.Size(), r.opts.MaxFileSize))
			return nil
		}
		if len(files) == r.opts.MaxFiles {
			r.opts.Warn(fmt.Sprintf("skill %s: serving only its first %d files", sk.Name, r.opts.MaxFiles))
			return fs.SkipAll
		}
		files = append(files, servedFile{dir: sk.Dir, rel: p, mime: mimeOf(root, p), size: fi.Size()})
		return nil
	})
	return files
}

// ErrFileChanged is the error of a read whose file changed on disk since
// it was listed and no longer passes the checks.
var ErrFileChanged = errors.New("the file changed since it was listed")

// readFile serves one file: text when its MIME type is textual and the
// bytes are UTF-8, a base64 blob otherwise. The file is opened inside the
// skill folder again, so a link swapped in since listing cannot escape.
func (r *Resources) readFile(uri string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		r.mu.Lock()
		f, ok := r.served[uri]
		limit := r.opts.MaxFileSize
		r.mu.Unlock()
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		data, err := readInside(f.dir, f.rel, limit)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", uri, err)
		}
		c := &mcp.ResourceContents{URI: uri, MIMEType: f.mime}
		if textual(f.mime) && utf8.Valid(data) {
			c.Text = string(data)
		} else {
			c.Blob = data
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
	}
}

// readInside reads rel under dir through os.Root, at most limit bytes.
func readInside(dir, rel string, limit int64) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	fh, err := openFile(root, rel)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, ErrFileChanged
	}
	data, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, ErrFileChanged
	}
	return data, nil
}

// openFile opens rel under root for reading without waiting: a named pipe
// swapped in for a listed file (a skill's tool may write in its folder)
// would otherwise block the read, or a listing holding r.mu, for good.
// Callers check that what they opened is a regular file.
func openFile(root *os.Root, rel string) (*os.File, error) {
	return root.OpenFile(rel, os.O_RDONLY|oNonblock, 0)
}

func (r *Resources) readIndex(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	r.mu.Lock()
	body := r.index
	r.mu.Unlock()
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: IndexURI, MIMEType: "application/json", Text: string(body)}}}, nil
}

// Watch calls reload every interval (if <= 0, 2s) and syncs s with the
// skills it returns, until ctx is done. A failed reload keeps the
// resources as they are. It returns ctx's error.
func (r *Resources) Watch(ctx context.Context, s *mcp.Server, reload func(context.Context) ([]*agent.Skill, error), interval time.Duration) error {
	if interval <= 0 {
		interval = 2 * time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		skills, err := reload(ctx)
		if err != nil {
			continue
		}
		r.Sync(s, skills)
	}
}
