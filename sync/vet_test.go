package sync

import (
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/skillpm/skillpm/skill"
)

func TestSelected(t *testing.T) {
	cfg := &Config{Content: []Rule{
		{Name: "pdf*", Versions: ">=1.1.0"},
		{Name: "team/*", Tags: `^2\.`},
	}}
	if err := cfg.compile(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		repo, tag string
		want      bool
	}{
		{"pdf", "1.0.0", false},
		{"pdf", "1.1.0", true},
		{"pdf-tools", "2.0.0", true},
		{"slugify", "1.1.0", false},
		{"team/a", "2.0.1", true},
		{"team/a", "1.9.0", false},
		{"team/a/b", "2.0.0", false},
	} {
		v := semver.MustParse(tc.tag)
		if got := cfg.Selected(tc.repo, tc.tag, v); got != tc.want {
			t.Errorf("Selected(%s, %s): got %v, want %v", tc.repo, tc.tag, got, tc.want)
		}
	}
	if got := (&Config{}).Selected("x", "1.0.0", semver.MustParse("1.0.0")); !got {
		t.Errorf("no rules: got %v, want true", got)
	}
}

func TestCompileRejectsBadRules(t *testing.T) {
	for _, cfg := range []Config{
		{Content: []Rule{{Name: "["}}},
		{Content: []Rule{{Versions: ">>1"}}},
		{Content: []Rule{{Tags: "("}}},
		{Policy: Policy{Lint: "pedantic"}},
	} {
		if err := cfg.compile(); err == nil {
			t.Errorf("compile(%+v): got nil, want an error", cfg)
		}
	}
}

func TestCheckLicense(t *testing.T) {
	allowed := []string{"MIT", "Apache-2.0"}
	for _, tc := range []struct {
		allowed []string
		expr    string
		ok      bool
	}{
		{nil, "", true},
		{nil, "GPL-3.0-only", true},
		{allowed, "", false},
		{allowed, "MIT", true},
		{allowed, "mit", true},
		{allowed, "GPL-3.0-only", false},
		{allowed, "MIT OR GPL-3.0-only", true},
		{allowed, "MIT AND GPL-3.0-only", false},
		{allowed, "(MIT AND Apache-2.0)", true},
	} {
		if got := checkLicense(tc.allowed, tc.expr) == nil; got != tc.ok {
			t.Errorf("checkLicense(%v, %q): got ok=%v, want %v", tc.allowed, tc.expr, got, tc.ok)
		}
	}
}

func TestCheckPermissions(t *testing.T) {
	none, github := []string{}, []string{"api.github.com", "*.example.com"}
	no := false
	perm := func(hosts []string, sub bool, write []string) *skill.Permissions {
		p := &skill.Permissions{}
		p.Network.Outbound, p.Processes.AllowSubprocess, p.Filesystem.Write = hosts, sub, write
		return p
	}
	for _, tc := range []struct {
		name   string
		policy PermissionPolicy
		got    *skill.Permissions
		ok     bool
	}{
		{"unrestricted", PermissionPolicy{}, perm([]string{"evil.com"}, true, []string{"/"}), true},
		{"undeclared", PermissionPolicy{Network: &none}, nil, true},
		{"undeclared required", PermissionPolicy{RequireDeclared: true}, nil, false},
		{"no network ok", PermissionPolicy{Network: &none}, perm(nil, false, nil), true},
		{"no network", PermissionPolicy{Network: &none}, perm([]string{"api.github.com"}, false, nil), false},
		{"allowed host", PermissionPolicy{Network: &github}, perm([]string{"api.github.com"}, false, nil), true},
		{"allowed glob", PermissionPolicy{Network: &github}, perm([]string{"x.example.com"}, false, nil), true},
		{"other host", PermissionPolicy{Network: &github}, perm([]string{"evil.com"}, false, nil), false},
		{"no subprocess", PermissionPolicy{Subprocess: &no}, perm(nil, true, nil), false},
		{"no writes", PermissionPolicy{FilesystemWrite: &none}, perm(nil, false, []string{"./out"}), false},
	} {
		if got := checkPermissions(tc.policy, tc.got) == nil; got != tc.ok {
			t.Errorf("%s: got ok=%v, want %v", tc.name, got, tc.ok)
		}
	}
}
