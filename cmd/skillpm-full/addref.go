package main

import (
	"fmt"
	"path"
	"strings"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/ociref"
)

// ociRefArg reports whether an 'add' argument is an OCI reference
// (registry.example.com/org/skills/pdf[:TAG|@…], oci:PATH) rather than a
// skill name: an oci: path, or a first segment that is a registry host
// (has a dot or a port, or is localhost). Git hosts and URLs with a
// scheme are left to the git source.
func ociRefArg(arg string) bool {
	if strings.HasPrefix(arg, ociref.LayoutPrefix) {
		return true
	}
	host, rest, ok := strings.Cut(arg, "/")
	if !ok || rest == "" || host == "." || host == ".." || strings.Contains(arg, "://") || strings.HasSuffix(arg, ".git") {
		return false
	}
	switch strings.ToLower(host) {
	case "github.com", "gitlab.com", "bitbucket.org", "codeberg.org":
		return false
	}
	return strings.ContainsAny(host, ".:") || host == "localhost"
}

// wantsFromRef turns an OCI reference given to 'add' into the skills to
// add: every skill of a collection (each from its own repository, at the
// version the collection pins, after checking that the tag still holds
// the pinned manifest), or the one skill the reference names (a tag is
// added as that exact version, a range as written, no tag as the newest).
// A skill is written with the repository's prefix as its registry unless
// that is the project's default.
func wantsFromRef(c *cli.Context, e *command.Env, m *manager.Manager, arg string) ([]manager.Want, error) {
	ref, err := parseRef(c, arg)
	if err != nil {
		return nil, err
	}
	ro, err := command.ReadRegistryOptions(c)
	if err != nil {
		return nil, err
	}
	client, err := registryClient(e, ro)
	if err != nil {
		return nil, err
	}
	prefixOf := func(repo string) string {
		p := path.Dir(repo)
		if p == m.Project.Registry {
			return ""
		}
		return p
	}
	col, ok, err := client.ReadCollection(c.Context, ref)
	if err != nil {
		return nil, err
	}
	if ok {
		var out []manager.Want
		for _, mb := range col.Members {
			if err := client.CheckMember(c.Context, mb); err != nil {
				return nil, fmt.Errorf("add collection %s: %w", col.Name, err)
			}
			out = append(out, manager.Want{Name: mb.Name, Constraint: mb.Version, Registry: prefixOf(mb.Repository)})
		}
		e.Logf("collection %s: %s", col.Name, command.Plural(len(out), "skill"))
		return out, nil
	}
	res, err := client.Resolve(c.Context, ref)
	if err != nil {
		return nil, err
	}
	name := res.Name()
	if base := path.Base(ref.Repo()); name != base {
		return nil, fmt.Errorf("add %s: %w: the repository holds the skill %q; skillpm finds a skill at PREFIX/NAME, so its repository's last segment must be its name", arg, registry.ErrNotSkill, name)
	}
	w := manager.Want{Name: name, Registry: prefixOf(ref.Repo())}
	switch {
	case ref.Range != "":
		w.Constraint = ref.Range
	case ref.Tag != "" || ref.Digest != "":
		if w.Constraint = res.Version(); w.Constraint == "" {
			return nil, fmt.Errorf("add %s: %w: the artifact names no version", arg, registry.ErrNotSkill)
		}
	}
	return []manager.Want{w}, nil
}
