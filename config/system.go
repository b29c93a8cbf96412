package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// System is the system-wide config of a managed machine
// (/etc/skillpm/config.yaml on Unix): what an administrator sets for every
// user. Its trust policy is the lowest floor: the user's policy and a
// project's are layered on top of it and can add requirements, never
// relax it (see verify.Layer). It is parsed as strictly as the user
// config.
type System struct {
	// Policy is the machine's trust policy file, made absolute against
	// the config's folder by LoadSystem; "" when it names none.
	Policy string `yaml:"policy"`

	// Path is the file the config was read from; "" when there was none.
	Path string `yaml:"-"`
}

// LoadSystem reads the system config at path. A missing file is the zero
// config; any other problem is an error wrapping ErrInvalid that names
// the file (and the line): a machine's floor that cannot be read must
// not silently vanish.
func LoadSystem(path string) (*System, error) {
	s := &System{}
	if path == "" {
		return s, nil
	}
	data, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrInvalid, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w: %s", path, ErrInvalid, describeYAMLError(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w: more than one YAML document", path, ErrInvalid)
	}
	s.Path = path
	if s.Policy != "" && !filepath.IsAbs(s.Policy) {
		s.Policy = filepath.Join(filepath.Dir(path), s.Policy)
	}
	return s, nil
}
