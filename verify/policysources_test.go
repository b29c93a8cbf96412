package verify

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadLayers(t *testing.T) {
	dir := t.TempDir()
	policy := func(name string) string {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte("version: 1\nrules:\n  - prefix: \"*\"\n    require: none\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sys, user, proj, flag := policy("system"), policy("user"), policy("project"), policy("flag")
	names := func(ls []Layer) string {
		var n []string
		for _, l := range ls {
			n = append(n, l.Name)
		}
		return strings.Join(n, ",")
	}
	for _, tc := range []struct {
		name string
		src  PolicySources
		want string
	}{
		{"none", PolicySources{}, ""},
		{"floors first", PolicySources{System: sys, User: user, Project: proj}, "system,user,project"},
		{"project alone", PolicySources{Project: proj}, "project"},
		{"--policy replaces user and project", PolicySources{System: sys, Policy: flag, User: user, Project: proj}, "system,--policy"},
	} {
		ls, err := ReadLayers(tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := names(ls); got != tc.want {
			t.Errorf("%s: layers %q; want %q", tc.name, got, tc.want)
		}
	}

	// A policy that cannot be read names its layer; so does a --key
	// that is not a key file.
	var le *LayerError
	if _, err := ReadLayers(PolicySources{System: sys, User: filepath.Join(dir, "missing.yaml")}); !errors.As(err, &le) || le.Layer != "user" {
		t.Errorf("missing user policy: err = %v; want a LayerError for the user layer", err)
	}
	if _, err := ReadLayers(PolicySources{Key: filepath.Join(dir, "nope.pub"), User: user}); !errors.As(err, &le) || le.Layer != "--key" || !strings.Contains(err.Error(), "nope.pub") {
		t.Errorf("missing key: err = %v; want a LayerError for --key naming the file", err)
	}
}
