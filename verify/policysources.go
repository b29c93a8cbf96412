package verify

import (
	"fmt"
	"path/filepath"
)

// PolicySources say where each layer of a trust policy is read from
// (README.md, "Policy layers"); "" is no such layer.
type PolicySources struct {
	// System is the system config's policy file, the floor of every
	// other layer.
	System string
	// Key, when set, is a public key file trusted for every repository:
	// one layer ("--key") requiring a signature by it, in place of User
	// and Project.
	Key string
	// Policy, when set and Key is not, is a policy file ("--policy") in
	// place of User and Project.
	Policy string
	// User and Project are the user config's and the project's policy
	// files, read when neither Key nor Policy is set.
	User, Project string
}

// LayerError is a layer's policy that cannot be read or parsed.
type LayerError struct {
	// Layer names the layer: "system", "--key", "--policy", "user",
	// "project".
	Layer string
	Err   error
}

func (e *LayerError) Error() string { return e.Err.Error() }
func (e *LayerError) Unwrap() error { return e.Err }

// ReadLayers reads the layers s names, floors first: System, then Key or
// Policy, else User then Project. It returns nil when s names none. A
// policy that cannot be read or parsed fails with a *LayerError.
func ReadLayers(s PolicySources) ([]Layer, error) {
	var layers []Layer
	add := func(name, path string) error {
		p, err := ReadPolicy(path)
		if err != nil {
			return &LayerError{Layer: name, Err: err}
		}
		layers = append(layers, Layer{Name: name, Policy: p})
		return nil
	}
	if s.System != "" {
		if err := add("system", s.System); err != nil {
			return nil, err
		}
	}
	switch {
	case s.Key != "":
		abs, err := filepath.Abs(s.Key)
		if err != nil {
			return nil, err
		}
		text := fmt.Sprintf("version: 1\nrules:\n  - prefix: \"*\"\n    keys: [%q]\n", abs)
		p, err := ParsePolicy("--key "+s.Key, []byte(text))
		if err != nil {
			return nil, &LayerError{Layer: "--key", Err: err}
		}
		layers = append(layers, Layer{Name: "--key", Policy: p})
	case s.Policy != "":
		if err := add("--policy", s.Policy); err != nil {
			return nil, err
		}
	default:
		for _, l := range []struct{ name, path string }{{"user", s.User}, {"project", s.Project}} {
			if l.path == "" {
				continue
			}
			if err := add(l.name, l.path); err != nil {
				return nil, err
			}
		}
	}
	return layers, nil
}
