package toolrun

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/internal/lazyre"
)

// baseEnv lists the host variables every child gets, if they are set.
var baseEnv = []string{
	"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TERM",
	// Windows needs these to start most programs at all.
	"SYSTEMROOT", "WINDIR", "PATHEXT", "TEMP", "TMP", "USERPROFILE",
}

// Grants says which host environment variables each skill may receive
// beyond the base set (PATH, HOME, LANG, ...): skill name -> variable
// names. A secret a skill declares reaches it only when it is granted, so
// a skill that declares AWS_SECRET_ACCESS_KEY does not get it just by
// asking. In YAML it is a mapping of skill names to lists of names.
type Grants map[string][]string

var envNameRE = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ValidEnvName reports whether name can be an environment variable that
// a grant names: letters, digits and underscores, not starting with a
// digit.
func ValidEnvName(name string) bool { return envNameRE().MatchString(name) }

// Validate checks every variable name; skill names are checked by whoever
// knows the skill name rules.
func (g Grants) Validate() error {
	for _, skill := range g.skills() {
		for _, name := range g[skill] {
			if !ValidEnvName(name) {
				return fmt.Errorf("skill %q: %q is not an environment variable name", skill, name)
			}
		}
	}
	return nil
}

// Allows reports whether g grants name to skill.
func (g Grants) Allows(skill, name string) bool {
	return slices.ContainsFunc(g[skill], func(n string) bool { return envKey(n) == envKey(name) })
}

// Merge returns the union of g and o.
func (g Grants) Merge(o Grants) Grants {
	out := Grants{}
	for _, src := range []Grants{g, o} {
		for skill, names := range src {
			for _, n := range names {
				if !out.Allows(skill, n) {
					out[skill] = append(out[skill], n)
				}
			}
		}
	}
	return out
}

// Refused is a grant an untrusted file made and [Grants.Untrusted] took
// away.
type Refused struct {
	Skill, Name string
}

// Untrusted returns the part of g that a file the user did not write (a
// cloned project's skills.yaml) may grant: every name that is not
// [Sensitive]. The sensitive grants are returned as refused, sorted.
// Without this, a hostile repository could ship a skill declaring
// AWS_SECRET_ACCESS_KEY next to a skills.yaml granting it.
func (g Grants) Untrusted() (Grants, []Refused) {
	out := Grants{}
	var refused []Refused
	for _, skill := range g.skills() {
		for _, n := range g[skill] {
			if Sensitive(n) {
				refused = append(refused, Refused{skill, n})
				continue
			}
			out[skill] = append(out[skill], n)
		}
	}
	return out, refused
}

func (g Grants) skills() []string {
	names := make([]string, 0, len(g))
	for s := range g {
		names = append(names, s)
	}
	sort.Strings(names)
	return names
}

// sensitiveParts are the words that make a variable name sensitive
// wherever they appear in it, after upper-casing.
var sensitiveParts = []string{
	"SECRET", "TOKEN", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
	"PRIVATE", "APIKEY", "API_KEY", "ACCESS_KEY", "AUTH", "SESSION",
	"COOKIE", "SIGNING", "CERT",
}

// sensitivePrefixes are prefixes of whole families of credentials.
var sensitivePrefixes = []string{
	"SKILLPM_", "AWS_", "AZURE_", "GOOGLE_", "GCP_", "GCLOUD_", "CLOUDSDK_",
	"SSH_", "GPG_", "GNUPG", "DOCKER_", "KUBE", "VAULT_", "NPM_", "PYPI_",
	"TWINE_", "CARGO_REGISTRY", "GH_", "GITHUB_", "GITLAB_", "OPENAI_",
	"ANTHROPIC_", "HF_", "HUGGING", "DATABASE_URL", "PG", "MYSQL",
}

// Sensitive reports whether a variable name looks like a credential:
// it contains SECRET, TOKEN, PASSWORD, CREDENTIAL, PRIVATE, API_KEY, AUTH
// and the like, ends in KEY, or starts with a prefix of a credential
// family (AWS_, GITHUB_, SKILLPM_, SSH_, ...). Only the user config and
// --env may grant such a name. The list errs on the side of caution.
func Sensitive(name string) bool {
	n := strings.ToUpper(name)
	if strings.HasSuffix(n, "KEY") || strings.HasSuffix(n, "_PW") || strings.HasSuffix(n, "PASS") {
		return true
	}
	for _, p := range sensitiveParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	for _, p := range sensitivePrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// envKey is how a variable name compares: case-insensitively on Windows.
func envKey(k string) string {
	if runtime.GOOS == "windows" {
		return strings.ToUpper(k)
	}
	return k
}

// childEnv picks from host the minimal base set plus the declared secrets
// that allowed grants. Nothing else is passed: no tokens, no NODE_OPTIONS,
// no PYTHONPATH, no BASH_ENV. withheld lists the declared secrets that
// are set in host but were not allowed, sorted.
func childEnv(host, declared []string, allowed func(name string) bool) (env, withheld []string) {
	want := make(map[string]bool, len(baseEnv)+len(declared))
	for _, k := range baseEnv {
		want[envKey(k)] = true
	}
	refused := map[string]bool{}
	for _, k := range declared {
		if want[envKey(k)] {
			continue // a base variable: passed anyway
		}
		if allowed != nil && allowed(k) {
			want[envKey(k)] = true
		} else {
			refused[envKey(k)] = true
		}
	}
	seen := map[string]int{}
	withheldSet := map[string]bool{}
	for _, kv := range host {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if refused[envKey(k)] {
			withheldSet[k] = true
		}
		if !want[envKey(k)] {
			continue
		}
		if i, dup := seen[envKey(k)]; dup { // last one wins, as in os/exec
			env[i] = kv
			continue
		}
		seen[envKey(k)] = len(env)
		env = append(env, kv)
	}
	for k := range withheldSet {
		withheld = append(withheld, k)
	}
	sort.Strings(withheld)
	return env, withheld
}
