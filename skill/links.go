package skill

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/skillpm/skillpm/internal/lazyre"
)

var (
	inlineLinkRE = lazyre.New(`!?\[[^\]]*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+["'(][^)]*)?\)`)
	refLinkRE    = lazyre.New(`^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	codeSpanRE   = lazyre.New("`+[^`]*`+")
	schemeRE     = lazyre.New(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// Link is a relative link found in a skill's body.
type Link struct {
	Target string // as written
	Path   string // cleaned, relative to the skill folder
	Line   int    // SKILL.md line
}

// Links returns the relative links of the body (Markdown inline links,
// images and reference definitions), skipping code, URLs and anchors.
func (s *Skill) Links() []Link {
	var out []Link
	fence := ""
	for i, l := range strings.Split(s.Body, "\n") {
		t := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		l = codeSpanRE().ReplaceAllString(l, "")
		var targets []string
		for _, m := range inlineLinkRE().FindAllStringSubmatch(l, -1) {
			targets = append(targets, m[1])
		}
		if m := refLinkRE().FindStringSubmatch(l); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			target = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
			if target == "" || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "//") || schemeRE().MatchString(target) {
				continue
			}
			p := target
			if i := strings.IndexAny(p, "#?"); i >= 0 {
				p = p[:i]
			}
			if u, err := url.PathUnescape(p); err == nil {
				p = u
			}
			if p == "" {
				continue
			}
			out = append(out, Link{Target: target, Path: p, Line: s.BodyLine + i})
		}
	}
	return out
}

func (c *checker) checkLinks() {
	for _, l := range c.s.Links() {
		rel, ok := NormalizeRelPath(l.Path)
		if !ok {
			c.skillMD("link-outside", l.Line, fmt.Sprintf("link %q points outside the skill folder", l.Target), "copy the file into the skill (e.g. references/) and link to it there")
			continue
		}
		switch err := insideExisting(c.s.Dir, rel); {
		case errors.Is(err, errOutside):
			c.skillMD("link-outside", l.Line, fmt.Sprintf("link %q resolves outside the skill folder through a symlink", l.Target), "replace the symlink with the file itself")
		case err != nil:
			c.skillMD("link-broken", l.Line, fmt.Sprintf("link %q points at a file that does not exist", l.Target), "create "+rel+" or fix the link")
		}
	}
}
