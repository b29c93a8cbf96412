package agent

import (
	"fmt"
	"path"
	"slices"

	"github.com/skillpm/skillpm/skill"
)

// Candidates returns the selection inputs of the catalog's skills.
func (c *Catalog) Candidates() []skill.Candidate {
	out := make([]skill.Candidate, 0, len(c.Skills))
	for _, s := range c.Skills {
		cd := skill.Candidate{Name: s.Name, WhenToUse: s.WhenToUse}
		for _, t := range s.Tools {
			cd.Tools = append(cd.Tools, t.Name)
		}
		out = append(out, cd)
	}
	return out
}

// Rank scores every skill against q (skill.Rank), selected ones first.
func (c *Catalog) Rank(q skill.Query) []skill.Scored { return skill.Rank(c.Candidates(), q) }

// Ordered returns the named skills of the catalog in the given order;
// names it does not hold are ignored.
func (c *Catalog) Ordered(names []string) []*Skill {
	var out []*Skill
	for _, n := range names {
		if s, err := c.Skill(n); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// Only returns a catalog of the named skills alone (tool conflicts settled
// again among them). Problems and skipped skills carry over.
func (c *Catalog) Only(names []string) *Catalog {
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	var loaded []*Skill
	for _, s := range c.order {
		if keep[s.Name] {
			loaded = append(loaded, s)
		}
	}
	d := &Catalog{Problems: c.Problems, Skipped: c.Skipped, Index: c.Index}
	d.setSkills(loaded)
	return d
}

// Filter keeps the skills whose names match an include pattern (all when
// include is empty) and no exclude pattern. Patterns are skill names or
// path.Match globs ("pdf-*"). A malformed pattern is an error.
func (c *Catalog) Filter(include, exclude []string) (*Catalog, error) {
	for _, p := range slices.Concat(include, exclude) {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("skill pattern %q: %w", p, err)
		}
	}
	if len(include) == 0 && len(exclude) == 0 {
		return c, nil
	}
	match := func(pats []string, name string) bool {
		return slices.ContainsFunc(pats, func(p string) bool { ok, _ := path.Match(p, name); return ok })
	}
	var names []string
	for _, s := range c.Skills {
		if (len(include) == 0 || match(include, s.Name)) && !match(exclude, s.Name) {
			names = append(names, s.Name)
		}
	}
	return c.Only(names), nil
}

// ForHost returns the catalog as host sees it: each skill's host_overrides
// entry for host (see skill.MergeOverride) laid over its description and
// tools. A skill whose override cannot be applied is served unchanged and
// reported in the returned errors. An empty host returns c.
func (c *Catalog) ForHost(host string) (*Catalog, []error) {
	if host == "" {
		return c, nil
	}
	var errs []error
	loaded := make([]*Skill, 0, len(c.order))
	for _, s := range c.order {
		cfg := skill.Override(s.HostOverrides, host)
		if cfg == nil {
			loaded = append(loaded, s)
			continue
		}
		desc, tools, err := skill.ApplyHostOverride(s.Description, s.Tools, cfg)
		if err != nil {
			errs = append(errs, fmt.Errorf("skill %q: host_overrides for %s not applied: %w", s.Name, host, err))
			loaded = append(loaded, s)
			continue
		}
		cp := *s
		desc, _ = capDescription(desc)
		tools = slices.Clone(tools) // the override may return s.Tools itself
		for i := range tools {
			tools[i].Description, _ = capDescription(tools[i].Description)
		}
		cp.Description, cp.Tools = desc, tools
		loaded = append(loaded, &cp)
	}
	d := &Catalog{Problems: c.Problems, Skipped: c.Skipped, Index: c.Index}
	d.setSkills(loaded)
	return d, errs
}

// Budget is the outcome of fitting a prompt into a character budget.
type Budget struct {
	Text string
	// Kept and Left are skill names, in the order offered.
	Kept, Left []string
}

// PromptWithin renders the prompt section (format "xml" or "markdown") of
// skills, offered best first, keeping those that fit in maxChars
// characters in all. A skill that does not fit is left out and later,
// shorter ones are still tried. maxChars <= 0 means no limit.
func PromptWithin(format string, skills []*Skill, maxChars int) Budget {
	render := promptXML
	if format != "xml" {
		render = promptMarkdown
	}
	var b Budget
	var kept []*Skill
	for _, s := range skills {
		try := append(slices.Clone(kept), s)
		if maxChars > 0 && len([]rune(render(try))) > maxChars {
			b.Left = append(b.Left, s.Name)
			continue
		}
		kept = try
		b.Kept = append(b.Kept, s.Name)
	}
	b.Text = render(kept)
	return b
}
