package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLoad pins what a user config may be: a missing file is the empty
// config, anything else that cannot be used is an error naming the file
// (and the line, where YAML has one), never a silent fall-back that would
// fail open.
func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		config  string // "" writes no file; "<dir>" makes it a folder
		wantErr string // substring; "" for success
	}{
		{"no config", "", ""},
		{"empty file", "\n", ""},
		{"plain", "plain_http: [localhost:5000]\npolicy: trust/policy.yaml\n", ""},
		{"typo at top level", "plain_http: []\npolcy: p.yaml\n", `line 2: unknown key "polcy"`},
		{"typo in a mirror", "mirrors:\n  - prefix: localhost:5000/skills\n    mirrors: [oci:/srv/m]\n    veted: true\n", `line 4: unknown key "veted"`},
		{"type mismatch", "policy: [a.yaml, b.yaml]\n", "line 1: cannot unmarshal"},
		{"syntax", "policy: {\n", "config.yaml:"},
		{"two documents", "policy: a.yaml\n---\npolicy: b.yaml\n", "more than one YAML document"},
		{"bad mirror", "mirrors:\n  - prefix: localhost:5000/skills\n", "no mirrors listed"},
		{"tools env", "tools:\n  env:\n    deploy: [AWS_PROFILE, AWS_SECRET_ACCESS_KEY]\n", ""},
		{"tools env typo", "tools:\n  envs:\n    deploy: [AWS_PROFILE]\n", `line 2: unknown key "envs"`},
		{"tools env not a list", "tools:\n  env:\n    deploy: AWS_PROFILE\n", "line 3: cannot unmarshal"},
		{"tools env bad variable", "tools:\n  env:\n    deploy: [AWS-PROFILE]\n", `tools.env: invalid config: skill "deploy": "AWS-PROFILE" is not an environment variable name`},
		{"tools env bad skill", "tools:\n  env:\n    Deploy_X: [AWS_PROFILE]\n", `tools.env: invalid config: "Deploy_X" is not a skill name`},
		{"unreadable", "<dir>", "not a regular file"},
		{"allow target outside", "allow_target_outside: [/srv/dotfiles/claude]\n", ""},
		{"relative allow", "allow_target_outside: [../dotfiles]\n", `allow_target_outside: invalid config: "../dotfiles" is not an absolute path`},
		{"misspelt allow", "allow_targets_outside: [/srv/x]\n", `line 1: unknown key "allow_targets_outside"`},
		{"allow origins", "allow_origins: [https://cdn.example.com, 'https://cdn.example.com:8443', http://127.0.0.1:9000]\n", ""},
		{"origin with a path", "allow_origins: [https://cdn.example.com/skills]\n", `allow_origins: invalid config: "https://cdn.example.com/skills" is not an origin`},
		{"origin without a scheme", "allow_origins: [cdn.example.com]\n", `"cdn.example.com" is not an origin`},
		{"origin with a user", "allow_origins: ['https://u@cdn.example.com']\n", `is not an origin`},
		{"origin ftp", "allow_origins: ['ftp://cdn.example.com']\n", `is not an origin`},
		{"too large", "# " + strings.Repeat("x", MaxSize) + "\n", "too large"},
		{"timeouts and limits", "timeouts: {connect: 5s, response_header: 1m, stall: 20s}\nlimits: {max_blob_size: 1048576, max_manifest_size: 65536, max_pages: 10, max_list_items: 500}\n", ""},
		{"timeout typo", "timeouts:\n  stal: 5s\n", `line 2: unknown key "stal"`},
		{"timeout not a duration", "timeouts:\n  connect: soon\n", "line 2: cannot unmarshal"},
		{"negative timeout", "timeouts:\n  stall: -1s\n", "timeouts.stall is negative"},
		{"negative limit", "limits:\n  max_blob_size: -1\n", "limits.max_blob_size is negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, FileName)
			switch tc.config {
			case "":
			case "<dir>":
				if err := os.Mkdir(p, 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.WriteFile(p, []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			u, err := Load(p)
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), p) {
					t.Fatalf("Load() = %+v, %v; want an ErrInvalid starting with %s and containing %q", u, err, p, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load() = %v; want no error", err)
			}
			if tc.config == "" && u.Path != "" {
				t.Errorf("Path = %q for a missing file; want \"\"", u.Path)
			}
		})
	}
}

// TestLoadPolicyRelative: policy: is relative to the config's folder.
func TestLoadPolicyRelative(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	if err := os.WriteFile(p, []byte("policy: trust/policy.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := u.Policy, filepath.Join(dir, "trust/policy.yaml"); got != want {
		t.Errorf("Policy = %q; want %q", got, want)
	}
	if u.Path != p {
		t.Errorf("Path = %q; want %q", u.Path, p)
	}
}

// TestLoadTimeouts: durations are read as Go durations, limits as
// numbers, so they reach the registry client as written.
func TestLoadTimeouts(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(p, []byte("timeouts: {connect: 5s, response_header: 1m, stall: 1500ms}\nlimits: {max_blob_size: 2048, max_pages: 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	want := Timeouts{Connect: 5 * time.Second, ResponseHeader: time.Minute, Stall: 1500 * time.Millisecond}
	if u.Timeouts != want {
		t.Errorf("Timeouts = %+v; want %+v", u.Timeouts, want)
	}
	if u.Limits.MaxBlobSize != 2048 || u.Limits.MaxPages != 3 {
		t.Errorf("Limits = %+v; want max_blob_size 2048, max_pages 3", u.Limits)
	}
}

// TestLoadSystem: the system config is as strict as the user's, and a
// missing one is no floor.
func TestLoadSystem(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	s, err := LoadSystem(p)
	if err != nil || s.Policy != "" || s.Path != "" {
		t.Fatalf("missing file: LoadSystem = %+v, %v; want the zero config", s, err)
	}
	os.WriteFile(p, []byte("policy: org/policy.yaml\n"), 0o644)
	s, err = LoadSystem(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Policy, filepath.Join(dir, "org/policy.yaml"); got != want {
		t.Errorf("Policy = %q; want %q", got, want)
	}
	for _, bad := range []string{"polcy: p.yaml\n", "policy: [a, b]\n", "policy: a\n---\npolicy: b\n"} {
		os.WriteFile(p, []byte(bad), 0o644)
		if _, err := LoadSystem(p); !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), p) {
			t.Errorf("%q: err = %v; want ErrInvalid naming %s", bad, err, p)
		}
	}
}

// TestLoadToolsEnv: tools.env is the per-skill grant of declared secrets.
func TestLoadToolsEnv(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(p, []byte("tools:\n  env:\n    deploy: [AWS_SECRET_ACCESS_KEY]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !u.Tools.Env.Allows("deploy", "AWS_SECRET_ACCESS_KEY") || u.Tools.Env.Allows("other", "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("Tools.Env = %v; want AWS_SECRET_ACCESS_KEY granted to deploy only", u.Tools.Env)
	}
}
