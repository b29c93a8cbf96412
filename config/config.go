// Package config reads skillpm's user configuration: one YAML file
// (config.yaml in the user config folder, or under SKILLPM_HOME), decoded
// once into one type and passed down to whatever needs a part of it.
//
// Decoding is strict. An unknown key is an error that names the file and
// the line: a misspelt key ("veted: true", "polcy:") must never be
// ignored, because ignoring it fails open.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/internal/lazyre"
	"github.com/skillpm/skillpm/registry/ociref"
	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/toolrun"
)

// FileName is the user config's file name.
const FileName = "config.yaml"

// MaxSize bounds how much of a config file is read: a config is a few
// lines, and a file larger than this is not one.
const MaxSize = 1 << 20

// ErrInvalid is wrapped by every error about a config file that exists
// but cannot be used: unreadable, not YAML, an unknown key, a bad value.
var ErrInvalid = errors.New("invalid config")

// User is the user config. Its zero value is the config of a user who
// wrote none.
type User struct {
	// PlainHTTP lists registry hosts (host:port) spoken to without TLS.
	PlainHTTP []string `yaml:"plain_http"`
	// Limits bound what pulling one skill may unpack, and what reading
	// from a registry may cost.
	Limits Limits `yaml:"limits"`
	// Timeouts bound every network exchange (README: Configuration).
	Timeouts Timeouts `yaml:"timeouts"`
	// Mirrors redirect reads of upstream prefixes (README: Mirrors).
	Mirrors []ociref.Mirror `yaml:"mirrors"`
	// Search configures 'index refresh' and 'search'.
	Search Search `yaml:"search"`
	// Policy is the trust policy file, made absolute against the config's
	// folder by Load; "" when the user names none.
	Policy string `yaml:"policy"`
	// Tools configures running the tools skills declare.
	Tools Tools `yaml:"tools"`

	// AllowTargetOutside lists absolute folders that install target
	// folders may resolve into (through a symlinked .claude/skills, or
	// .claude) although they lie outside the project, or outside the home
	// folder for -g. Empty allows none: such a target is an error.
	AllowTargetOutside []string `yaml:"allow_target_outside"`
	// AllowLocalGit lists absolute folders under which a skills.yaml may
	// name file:// git repositories outside its own project folder. A
	// cloned project's skills.yaml is not trusted to read the machine's
	// other repositories: empty allows only repositories inside the
	// project.
	AllowLocalGit []string `yaml:"allow_local_git"`
	// AllowOrigins lists origins (https://cdn.example.com) that a
	// well-known index's entries may point at besides the index's own
	// origin, such as a publisher's CDN. Their artifacts are still
	// checked against the index's digests. Empty allows none.
	AllowOrigins []string `yaml:"allow_origins"`

	// Path is the file the config was read from; "" when there was none.
	Path string `yaml:"-"`
}

// Limits bound what pulling one skill may unpack and what a registry
// may make skillpm read. Zero fields take the registry package's
// defaults; negative ones are errors.
type Limits struct {
	MaxFiles        int   `yaml:"max_files"`
	MaxBytes        int64 `yaml:"max_bytes"`
	MaxFileSize     int64 `yaml:"max_file_size"`
	MaxBlobSize     int64 `yaml:"max_blob_size"`
	MaxManifestSize int64 `yaml:"max_manifest_size"`
	MaxPages        int   `yaml:"max_pages"`
	MaxListItems    int   `yaml:"max_list_items"`
}

// Timeouts bound network exchanges, as durations ("10s", "1m"). Zero
// fields take the defaults (connect 10s, response_header 30s, stall
// 30s); negative ones are errors.
type Timeouts struct {
	Connect        time.Duration `yaml:"connect"`
	ResponseHeader time.Duration `yaml:"response_header"`
	Stall          time.Duration `yaml:"stall"`
}

// validate refuses negative limits and timeouts: they would read as
// "no limit" further down.
func (u *User) validate() error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"limits.max_files", int64(u.Limits.MaxFiles)},
		{"limits.max_bytes", u.Limits.MaxBytes},
		{"limits.max_file_size", u.Limits.MaxFileSize},
		{"limits.max_blob_size", u.Limits.MaxBlobSize},
		{"limits.max_manifest_size", u.Limits.MaxManifestSize},
		{"limits.max_pages", int64(u.Limits.MaxPages)},
		{"limits.max_list_items", int64(u.Limits.MaxListItems)},
		{"timeouts.connect", int64(u.Timeouts.Connect)},
		{"timeouts.response_header", int64(u.Timeouts.ResponseHeader)},
		{"timeouts.stall", int64(u.Timeouts.Stall)},
	} {
		if f.v < 0 {
			return fmt.Errorf("%w: %s is negative", ErrInvalid, f.name)
		}
	}
	return nil
}

// Tools configures running the tools and scripts skills declare.
type Tools struct {
	// Env grants skills the environment variables they declare as
	// secrets: skill name -> variable names. A declared secret that no
	// grant allows is not passed (README: Secrets).
	Env toolrun.Grants `yaml:"env"`
	// Sandbox is how tool runs are confined: off, default (the default)
	// or strict (README: Running tools).
	Sandbox string `yaml:"sandbox"`
}

// Search configures the search index.
type Search struct {
	// Registries are the registry prefixes 'index refresh' lists.
	Registries []string `yaml:"registries"`
	// Repositories names the skills of registries without a catalog
	// API: prefix -> skill names.
	Repositories map[string][]string `yaml:"repositories"`
}

// Load reads the config at path. A missing file is the zero config (with
// Path ""); any other problem is an error wrapping ErrInvalid that names
// the file, and the line where the YAML says which.
func Load(path string) (*User, error) {
	u := &User{}
	if path == "" {
		return u, nil
	}
	data, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrInvalid, err)
	}
	if err := Parse(data, u); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := u.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	u.Path = path
	if u.Policy != "" && !filepath.IsAbs(u.Policy) {
		u.Policy = filepath.Join(filepath.Dir(path), u.Policy)
	}
	for _, a := range u.AllowTargetOutside {
		if !filepath.IsAbs(a) {
			return nil, fmt.Errorf("%s: allow_target_outside: %w: %q is not an absolute path", path, ErrInvalid, a)
		}
	}
	for _, a := range u.AllowLocalGit {
		if !filepath.IsAbs(a) {
			return nil, fmt.Errorf("%s: allow_local_git: %w: %q is not an absolute path", path, ErrInvalid, a)
		}
	}
	for _, o := range u.AllowOrigins {
		if !isOrigin(o) {
			return nil, fmt.Errorf("%s: allow_origins: %w: %q is not an origin: write scheme://host[:port], as https://cdn.example.com", path, ErrInvalid, o)
		}
	}
	if _, err := sandbox.ParseMode(u.Tools.Sandbox); err != nil {
		return nil, fmt.Errorf("%s: tools.sandbox: %w: %v", path, ErrInvalid, err)
	}
	if err := validGrants(u.Tools.Env); err != nil {
		return nil, fmt.Errorf("%s: tools.env: %w: %v", path, ErrInvalid, err)
	}
	for _, m := range u.Mirrors {
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("%s: mirrors: %w: %v", path, ErrInvalid, err)
		}
	}
	return u, nil
}

// isOrigin reports whether o is an origin as a browser writes one:
// https:// or http://, a host, an optional port, and nothing else.
func isOrigin(o string) bool {
	u, err := url.Parse(o)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.Hostname() != "" &&
		u.User == nil && u.Path == "" && u.RawQuery == "" && u.Fragment == "" && !strings.HasSuffix(o, "?") && !strings.HasSuffix(o, "#") &&
		u.Scheme+"://"+u.Host == o
}

// Parse decodes data into u strictly: unknown keys and values of the
// wrong type are errors wrapping ErrInvalid, each naming its line.
// Empty data leaves u as it is.
func Parse(data []byte, u *User) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(u); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %s", ErrInvalid, describeYAMLError(err))
	}
	// A second document would be ignored by Decode: refuse it.
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: more than one YAML document", ErrInvalid)
	}
	return nil
}

// validGrants checks the skill and variable names of a grant.
func validGrants(g toolrun.Grants) error {
	for name := range g {
		if !skill.ValidName(name) {
			return fmt.Errorf("%q is not a skill name (lowercase letters, digits and single hyphens)", name)
		}
	}
	return g.Validate()
}

// readBounded reads path, refusing anything that is not a regular file of
// at most MaxSize bytes. The type is checked before the file is opened:
// opening a FIFO with no writer would wait forever.
func readBounded(path string) ([]byte, error) {
	return boundedfile.Read(path, MaxSize)
}

var unknownField = lazyre.New(`^line (\d+): field (\S+) not found in type \S+$`)

// describeYAMLError turns yaml.v3's messages into the words a user needs:
// "line 3: unknown key "veted"" rather than a Go type name.
func describeYAMLError(err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return strings.TrimPrefix(err.Error(), "yaml: ")
	}
	msgs := make([]string, 0, len(te.Errors))
	for _, m := range te.Errors {
		if g := unknownField().FindStringSubmatch(m); g != nil {
			m = fmt.Sprintf("line %s: unknown key %q", g[1], g[2])
		}
		msgs = append(msgs, m)
	}
	return strings.Join(msgs, "; ")
}
