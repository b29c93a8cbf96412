package giturl

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Source
	}{
		{"github.com/anthropics/skills", Source{URL: "https://github.com/anthropics/skills.git"}},
		{"github.com/anthropics/skills/skills/pdf", Source{URL: "https://github.com/anthropics/skills.git", Subdir: "skills/pdf"}},
		{"github.com/anthropics/skills/skills/pdf@v1.2.0", Source{URL: "https://github.com/anthropics/skills.git", Subdir: "skills/pdf", Ref: "v1.2.0"}},
		{"github.com/acme/mono@pdf/v1.2.0", Source{URL: "https://github.com/acme/mono.git", Ref: "pdf/v1.2.0"}},
		{"GitLab.com/group/repo.git", Source{URL: "https://gitlab.com/group/repo.git"}},
		{"https://github.com/anthropics/skills/tree/main/skills/pdf", Source{URL: "https://github.com/anthropics/skills.git", Subdir: "skills/pdf", Ref: "main"}},
		{"https://gitlab.com/g/r/-/tree/v2/x", Source{URL: "https://gitlab.com/g/r.git", Subdir: "x", Ref: "v2"}},
		{"https://git.example.com/team/skills.git//skills/pdf#v1.0.0", Source{URL: "https://git.example.com/team/skills.git", Subdir: "skills/pdf", Ref: "v1.0.0"}},
		{"https://git.example.com/team/skills.git@main", Source{URL: "https://git.example.com/team/skills.git", Ref: "main"}},
		{"git@github.com:owner/repo.git", Source{URL: "git@github.com:owner/repo.git"}},
		{"git@github.com:owner/repo.git//skills/x@v1.0.0", Source{URL: "git@github.com:owner/repo.git", Subdir: "skills/x", Ref: "v1.0.0"}},
		{"ssh://git@host:2222/repo.git", Source{URL: "ssh://git@host:2222/repo.git"}},
		{"git://127.0.0.1:9418/mono.git//skills/pdf", Source{URL: "git://127.0.0.1:9418/mono.git", Subdir: "skills/pdf"}},
		{"file:///srv/repos/mono.git//skills/pdf#0123456789abcdef0123456789abcdef01234567", Source{URL: "file:///srv/repos/mono.git", Subdir: "skills/pdf", Ref: "0123456789abcdef0123456789abcdef01234567"}},
	}
	for _, tc := range tests {
		got, err := Parse(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, in := range []string{
		"",
		"pdf-tools",                    // a skill name, not a repository
		"example.com/owner/repo",       // unknown short host: needs a scheme
		"ext::sh -c touch% /tmp/pwned", // git's ext transport runs commands
		"ftp://host/repo.git",          // unsupported scheme
		"github.com/o/r//../../etc",    // folder escaping the repository
		"https://h/r.git#--upload-pack=touch /tmp/x", // a ref read as an option
		"https://h/r.git#a..b",                       // a revision range
	} {
		if got, err := Parse(in); !errors.Is(err, ErrSource) {
			t.Errorf("Parse(%q) = %+v, %v; want ErrSource", in, got, err)
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:s3cret@host/r.git": "https://user:xxxxx@host/r.git",
		"https://ghp_token@host/r.git":   "https://xxxxx@host/r.git",
		"ssh://git@host/r.git":           "ssh://git@host/r.git",
		"git@github.com:o/r.git":         "git@github.com:o/r.git",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q; want %q", in, got, want)
		}
	}
}
