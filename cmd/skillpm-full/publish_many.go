package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/internal/command"
	"github.com/urfave/cli/v2"
)

// publishMany publishes each folder under the prefix opts.repo, in
// order, stopping at the first failure; --json prints the list of what
// was published.
func publishMany(c *cli.Context, e *command.Env, dirs []string, opts publishOptions) error {
	signer, err := publishSigner(c, e, opts)
	if err != nil {
		return err
	}
	outs := []map[string]any{}
	for _, d := range dirs {
		o := opts
		o.dir = d
		out, err := runPublish(c, e, o, signer)
		if err != nil {
			if e.JSON && len(outs) > 0 {
				command.WriteJSON(e.Stdout, outs)
			}
			return err
		}
		outs = append(outs, out)
	}
	if e.JSON {
		return command.WriteJSON(e.Stdout, outs)
	}
	return nil
}

// headTagVersion is the version of the semver tag at HEAD of the git
// repository holding dir, for a skill named name: "name/v1.2.0" or
// "name@1.2.0" first, then a plain "v1.2.0" or "1.2.0"; the highest when
// several match. "" when dir is not in a git repository, git is not
// installed, or no tag matches.
func headTagVersion(ctx context.Context, dir, name string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-c", "core.fsmonitor=false", "-C", abs, "tag", "--points-at", "HEAD")
	var out bytes.Buffer
	cmd.Stdout = &limitWriter{w: &out, left: 1 << 20}
	if cmd.Run() != nil {
		return ""
	}
	var own, plain *semver.Version
	for _, t := range strings.Fields(out.String()) {
		prefix, rest := "", t
		if i := strings.LastIndexAny(t, "/@"); i >= 0 {
			prefix, rest = t[:i], t[i+1:]
		}
		v, err := semver.StrictNewVersion(strings.TrimPrefix(rest, "v"))
		if err != nil {
			continue
		}
		switch {
		case prefix == "":
			if plain == nil || v.GreaterThan(plain) {
				plain = v
			}
		case prefix == name || filepath.Base(prefix) == name:
			if own == nil || v.GreaterThan(own) {
				own = v
			}
		}
	}
	if own != nil {
		return own.String()
	}
	if plain != nil {
		return plain.String()
	}
	return ""
}

// limitWriter keeps at most left bytes and drops the rest.
type limitWriter struct {
	w    *bytes.Buffer
	left int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) > l.left {
		p = p[:l.left]
	}
	l.left -= len(p)
	l.w.Write(p)
	return n, nil
}
