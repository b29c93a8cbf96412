package audit

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/skillpm/skillpm/skill"
)

// Options tune a scan. The zero value scans with default limits and honours
// no suppressions.
type Options struct {
	// Name is the skill's name in the report and for allow-list entries;
	// empty means the frontmatter name, else the folder's name.
	Name string
	// Inline honours "skillpm-audit-ignore RULE reason" comments in the
	// scanned files. Turn it on only for content the user vouches for
	// (their own folder, what they publish): content from elsewhere could
	// suppress its own findings.
	Inline bool
	// AllowList suppresses findings the project has reviewed.
	AllowList *AllowList
	// MaxFileBytes is the most read from one file; the rest is reported
	// as not scanned. If <= 0, 4 MiB.
	MaxFileBytes int64
	// MaxTotalBytes is the most read from the whole skill. If <= 0, 64 MiB.
	MaxTotalBytes int64
	// MaxFiles is the most files examined. If <= 0, 10,000.
	MaxFiles int
	// HostLimit is the size over which a skill is too large for hosts.
	// If <= 0, 8 MiB (the Claude API's upload limit).
	HostLimit int64
}

func (o Options) withDefaults() Options {
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = 4 << 20
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = 64 << 20
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = 10000
	}
	if o.HostLimit <= 0 {
		o.HostLimit = 8 << 20
	}
	return o
}

// perms is what the skill's declared permissions deny. Every field is
// false when the skill declares no permissions: there is then no claim
// for the code to contradict.
type perms struct {
	noNetwork, noSubprocess, noWrite bool
}

// Scan audits the skill folder dir. It fails only when dir is not a skill
// folder or cannot be read; everything found in it is a Finding. Files
// are read through an os.Root, so no symbolic link leads the scan outside
// dir.
func Scan(ctx context.Context, dir string, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	dir = filepath.Clean(dir)
	sk, err := skill.Load(dir)
	var se *skill.Error
	switch {
	case err == nil:
	case errors.Is(err, skill.ErrNotSkill):
		return nil, fmt.Errorf("audit %s: %w", dir, err)
	case errors.As(err, &se):
		// A broken frontmatter does not stop the audit: the content is
		// scanned all the same, without declared permissions.
		sk = nil
	default:
		return nil, fmt.Errorf("audit %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("audit %s: %w", dir, err)
	}
	defer root.Close()

	s := &scanner{ctx: ctx, opts: opts, root: root, scripts: map[string]string{}}
	s.rep = &Report{Dir: dir, Source: filepath.ToSlash(dir), RulesVersion: RulesVersion, Skill: opts.Name}
	if sk != nil {
		if s.rep.Skill == "" {
			s.rep.Skill = sk.Name()
		}
		s.declared = sk.Frontmatter.Permissions
		if p := sk.Frontmatter.Permissions; p != nil {
			s.perms = perms{
				noNetwork:    len(p.Network.Outbound) == 0,
				noSubprocess: !p.Processes.AllowSubprocess,
				noWrite:      len(p.Filesystem.Write) == 0,
			}
		}
		for _, t := range sk.Tools {
			if e, ok := skill.NormalizeRelPath(t.Entrypoint); ok {
				s.scripts[e] = t.Runtime
			}
		}
		// Files SKILL.md tells the agent to run are scripts, whatever
		// their names: "bash scripts/setup" runs a file without an
		// extension or shebang as surely as one named setup.sh.
		for _, line := range strings.Split(sk.Body, "\n") {
			if !strings.Contains(line, "/") || !runsSomething(line) {
				continue // the regexp is costly on every line of every SKILL.md
			}
			for _, m := range runCommand().FindAllStringSubmatch(line, 8) {
				if e, ok := skill.NormalizeRelPath(m[2]); ok {
					if _, known := s.scripts[e]; !known {
						rt := strings.ToLower(m[1])
						if rt == "sh" || rt == "zsh" || rt == "source" {
							rt = "bash"
						}
						s.scripts[e] = rt
					}
				}
			}
		}
	}
	if s.rep.Skill == "" {
		s.rep.Skill = filepath.Base(dir)
	}
	if err := s.walk(); err != nil {
		return nil, fmt.Errorf("audit %s: %w", dir, err)
	}
	s.checkPermissions()
	if opts.Inline && s.skillMD != nil {
		if s.texts == nil {
			s.texts = map[string][]byte{}
		}
		s.texts[skill.FileName] = s.skillMD // for suppressions in the frontmatter
	}
	if s.size > opts.HostLimit {
		s.add(Finding{Rule: ruleTooLarge, File: ".", Message: fmt.Sprintf("the skill's files total %d bytes, over the %d byte upload limit", s.size, opts.HostLimit)})
	}
	s.suppress()
	slices.SortFunc(s.rep.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), cmp.Compare(a.Rule, b.Rule))
	})
	return s.rep, nil
}

// runCommand finds an interpreter run on a file of the skill in SKILL.md.
var runCommand = re(`(?m)(?:^|[\s\x60(;&|])(bash|sh|zsh|source|python[0-9.]*|node|deno|bun|ruby|perl|pwsh|powershell)\s+(?:-\S+\s+)*["']?((?:\./)?[\w@.-]+(?:/[\w@.-]+)+)`)

// runsSomething reports whether line names an interpreter runCommand
// looks for.
func runsSomething(line string) bool {
	l := strings.ToLower(line)
	for _, w := range []string{"sh ", "python", "node ", "deno ", "bun ", "ruby ", "perl ", "pwsh ", "powershell ", "source "} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

type scanner struct {
	ctx      context.Context
	opts     Options
	root     *os.Root
	rep      *Report
	perms    perms
	declared *skill.Permissions
	scripts  map[string]string // tool entrypoint -> runtime
	size     int64             // bytes of every regular file, read or not
	read     int64             // bytes read
	files    int
	skillMD  []byte
	texts    map[string][]byte // file -> content, kept only for files with findings
	perRule  map[[2]string]int // file, rule -> findings
	// Per-rule keyword state, reused from file to file (see scanText).
	masks   []uint8
	first   []int
	touched []int
	// The same for whole long lines.
	lineMasks   []uint8
	lineFirst   []int
	lineTouched []int
}

// maxPerRuleFile bounds the findings of one rule in one file: a hostile
// file of a million matching lines makes a report of a bounded size.
const maxPerRuleFile = 50

// add records a finding, filling in the rule's severity and summary.
func (s *scanner) add(f Finding) {
	key := [2]string{f.File, f.Rule}
	if s.perRule == nil {
		s.perRule = map[[2]string]int{}
	}
	s.perRule[key]++
	switch n := s.perRule[key]; {
	case n > maxPerRuleFile:
		return
	case n == maxPerRuleFile:
		defer func() {
			last := &s.rep.Findings[len(s.rep.Findings)-1]
			last.Message += fmt.Sprintf(" (the first %d findings of this rule in this file are listed)", maxPerRuleFile)
		}()
	}
	r, _ := RuleByID(f.Rule)
	f.Severity = r.Severity
	if f.Message == "" {
		f.Message = r.Summary
	}
	s.rep.Findings = append(s.rep.Findings, f)
}

func (s *scanner) walk() error {
	limited := false
	return fs.WalkDir(s.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // an unreadable subfolder: skip it
		}
		if cerr := s.ctx.Err(); cerr != nil {
			return cerr
		}
		if d.IsDir() {
			if gitStore(p) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			s.checkSymlink(p)
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		s.size += info.Size()
		if limited {
			return nil
		}
		if s.files >= s.opts.MaxFiles || s.read >= s.opts.MaxTotalBytes {
			limited = true
			s.add(Finding{Rule: ruleScanLimit, File: p, Message: fmt.Sprintf("scanning stopped here: over the limit of %d files or %d bytes per skill", s.opts.MaxFiles, s.opts.MaxTotalBytes)})
			return nil
		}
		s.files++
		return s.scanFile(p, info.Size())
	})
}

func (s *scanner) scanFile(rel string, size int64) error {
	f, err := s.root.Open(rel)
	if err != nil {
		return nil // vanished or unreadable: nothing to scan
	}
	defer f.Close()
	max := min(s.opts.MaxFileBytes, s.opts.MaxTotalBytes-s.read)
	// One buffer of the file's size (bounded), read in full: the size
	// comes from the walk, and a file that grew is cut at the limit.
	data := make([]byte, min(size, max))
	n, _ := io.ReadFull(f, data)
	data = data[:n]
	s.read += int64(n)
	s.rep.Files++
	s.rep.Bytes += int64(n)
	if int64(n) < size {
		s.add(Finding{Rule: ruleScanLimit, File: rel, Message: fmt.Sprintf("only the first %d of %d bytes were scanned", n, size)})
	}
	isBinary := false
	if text, ok := decodeWide(data); ok {
		// UTF-16 and UTF-32 text (PowerShell's default, Notepad's
		// "Unicode"): its interpreters and agents read it as text.
		data = text
	} else if head := data[:min(n, 8192)]; bytes.IndexByte(head, 0) >= 0 {
		if s.checkBinary(rel, head) {
			return nil
		}
		// A NUL byte does not stop bash (past the first line), an agent
		// or "bash logo.png" from reading the rest: every file that is
		// not an executable is matched against the rules as well.
		isBinary = true
	}
	if rel == skill.FileName {
		s.skillMD = data
	}
	s.scanText(rel, data, isBinary)
	if isBinary || bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		(&file{s: s, rel: rel, data: data}).archive()
	}
	return nil
}

// decodeWide returns the UTF-8 form of UTF-16 or UTF-32 text: with a byte
// order mark, or UTF-16 without one whose every other byte is NUL (ASCII
// text), as PowerShell and Windows editors write it.
func decodeWide(data []byte) ([]byte, bool) {
	var units []uint16
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE, 0, 0}), bytes.HasPrefix(data, []byte{0, 0, 0xFE, 0xFF}):
		order := binary.ByteOrder(binary.LittleEndian)
		if data[0] == 0 {
			order = binary.BigEndian
		}
		var sb bytes.Buffer
		for i := 4; i+4 <= len(data); i += 4 {
			sb.WriteRune(rune(order.Uint32(data[i:])))
		}
		return sb.Bytes(), true
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		units = wideUnits(data[2:], binary.LittleEndian)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		units = wideUnits(data[2:], binary.BigEndian)
	default:
		head := data[:min(len(data), 8192)]
		if bytes.IndexByte(head, 0) < 0 {
			return nil, false
		}
		order, ok := wideGuess(head)
		if !ok {
			return nil, false
		}
		units = wideUnits(data, order)
	}
	var sb bytes.Buffer
	sb.Grow(len(units))
	for _, r := range utf16.Decode(units) {
		sb.WriteRune(r)
	}
	return sb.Bytes(), true
}

func wideUnits(b []byte, order binary.ByteOrder) []uint16 {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = order.Uint16(b[2*i:])
	}
	return u
}

// wideGuess recognises UTF-16 without a byte order mark by its NUL bytes:
// in mostly-ASCII text, nearly every odd byte (little-endian) or even byte
// (big-endian) is NUL and nearly no other byte is.
func wideGuess(head []byte) (binary.ByteOrder, bool) {
	if len(head) < 8 {
		return nil, false
	}
	var nul [2]int
	for i, c := range head {
		if c == 0 {
			nul[i&1]++
		}
	}
	half := len(head) / 2
	switch {
	case nul[1] >= half*9/10 && nul[0] <= half/50:
		return binary.LittleEndian, true
	case nul[0] >= half*9/10 && nul[1] <= half/50:
		return binary.BigEndian, true
	}
	return nil, false
}

// gitStore reports whether the folder p holds a git repository's object
// store (objects/ or lfs/ under a .git folder): compressed history, too
// large to scan and never run. The rest of a .git folder is scanned: an
// artifact can carry a .git/run.sh that installs with the skill, and
// packing skips .git, so an author's own repository never reaches users.
func gitStore(p string) bool {
	parts := strings.Split(p, "/")
	for _, part := range parts[:len(parts)-1] {
		if part == ".git" {
			switch parts[len(parts)-1] {
			case "objects", "lfs":
				return true
			}
		}
	}
	return false
}

// checkSymlink reports a link whose target leaves the skill folder.
func (s *scanner) checkSymlink(rel string) {
	target, err := s.root.Readlink(rel)
	if err != nil {
		return
	}
	t := filepath.ToSlash(target)
	if !path.IsAbs(t) && !filepath.IsAbs(target) {
		j := path.Join(path.Dir(rel), t)
		if j != ".." && !strings.HasPrefix(j, "../") {
			return
		}
	}
	s.add(Finding{Rule: ruleSymlink, File: rel, Match: shorten(target), Message: "symbolic link to " + shorten(target) + ", outside the skill folder"})
}

var executableMagic = [][]byte{
	[]byte("\x7fELF"), []byte("MZ"), []byte("\xfe\xed\xfa\xce"), []byte("\xfe\xed\xfa\xcf"),
	[]byte("\xce\xfa\xed\xfe"), []byte("\xcf\xfa\xed\xfe"), []byte("\xca\xfe\xba\xbe"), []byte("\x00asm"),
}

var mediaMagic = [][]byte{
	[]byte("\x89PNG"), []byte("\xff\xd8\xff"), []byte("GIF8"), []byte("%PDF"), []byte("\x00\x01\x00\x00"),
	[]byte("OTTO"), []byte("wOFF"), []byte("wOF2"), []byte("\x00\x00\x01\x00"), []byte("BM"), []byte("ftyp"),
	[]byte("DIRC"), // a git index (.git/index)
}

// checkBinary classifies a file holding NUL bytes and reports whether it
// is an executable (whose text is not worth matching).
func (s *scanner) checkBinary(rel string, head []byte) bool {
	ext := strings.ToLower(path.Ext(rel))
	for _, m := range executableMagic {
		if bytes.HasPrefix(head, m) {
			s.add(Finding{Rule: ruleExecutable, File: rel, Message: fmt.Sprintf("compiled executable (%s) without reviewable source", describeMagic(head))})
			return true
		}
	}
	switch ext {
	case ".pyc", ".pyo", ".class", ".jar", ".so", ".dll", ".dylib", ".exe", ".node", ".wasm":
		s.add(Finding{Rule: ruleExecutable, File: rel, Message: "compiled code (" + ext + ") without reviewable source"})
		return true
	}
	for _, m := range mediaMagic {
		if bytes.HasPrefix(head, m) {
			return false
		}
	}
	if len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP" {
		return false
	}
	s.add(Finding{Rule: ruleOpaque, File: rel})
	return false
}

func describeMagic(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "ELF"
	case bytes.HasPrefix(head, []byte("MZ")):
		return "Windows PE"
	case bytes.HasPrefix(head, []byte("\x00asm")):
		return "WebAssembly"
	case bytes.HasPrefix(head, []byte("\xca\xfe\xba\xbe")):
		return "Mach-O universal or Java class"
	}
	return "Mach-O"
}

// checkPermissions reports grants that allow everything.
func (s *scanner) checkPermissions() {
	p := s.declared
	if p == nil {
		return
	}
	check := func(kind string, list []string, broad func(string) bool) {
		for _, v := range list {
			if broad(v) {
				line := findFrontmatterLine(s.skillMD, kind[strings.LastIndex(kind, ".")+1:], v)
				s.add(Finding{Rule: ruleOverbroad, File: skill.FileName, Line: line, Match: shorten(v),
					Message: fmt.Sprintf("permissions %s grants %q: that is everything", kind, v)})
			}
		}
	}
	check("filesystem.read", p.Filesystem.Read, broadPath)
	check("filesystem.write", p.Filesystem.Write, broadPath)
	check("network.outbound", p.Network.Outbound, func(h string) bool { return h == "*" || h == "*.*" || h == "0.0.0.0/0" })
}

func broadPath(g string) bool {
	g = strings.TrimSpace(strings.ReplaceAll(g, `\`, "/"))
	switch g {
	case "*", "**", "**/*", "**/**", "./**", "./**/*", "/", "/**", "/*", "~", "~/**", "~/*", ".", "./":
		return true
	}
	return strings.HasPrefix(g, "/") || strings.HasPrefix(g, "~") || strings.HasPrefix(g, "../") || g == ".."
}

// findFrontmatterLine is the line of SKILL.md's frontmatter that lists
// value under key, 0 when it cannot be told.
func findFrontmatterLine(md []byte, key, value string) int {
	lines := strings.Split(string(md), "\n")
	seen := false
	for i, l := range lines {
		if i > 0 && strings.TrimSpace(l) == "---" {
			break
		}
		if !seen {
			seen = strings.HasPrefix(strings.TrimSpace(l), key+":")
			if !seen {
				continue
			}
		}
		for _, q := range []string{`"` + value + `"`, `'` + value + `'`, "- " + value} {
			if strings.Contains(l, q) {
				return i + 1
			}
		}
		if strings.HasSuffix(strings.TrimSpace(l), ": "+value) || strings.Contains(l, "["+value+"]") {
			return i + 1
		}
	}
	return 0
}
