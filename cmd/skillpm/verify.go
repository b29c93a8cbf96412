package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/opencontainers/go-digest"
	"github.com/urfave/cli/v2"
	"golang.org/x/sync/errgroup"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/verify"
)

func verifyCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "check locked (or given) skills against the registry, the trust policy and the installed files",
		UsageText: `skillpm verify [options] [REF...]

Without REFs, for every skill of skills.lock: the registry still serves the
locked manifest digest, its content layer is the locked one, a signature
satisfies the trust policy, and the installed files match the lock. With REFs,
the signatures of those manifests are checked against the policy.

Policies are layered floors (README.md, "Policy layers"): the system
config's policy (/etc/skillpm/config.yaml, or SKILLPM_SYSTEM_CONFIG), then
--policy FILE or --key FILE if given, else the user config's policy and the
project's skills.yaml policy (with REFs too, when there is a project). A
skill must satisfy the rule of every layer; a project can add requirements,
never relax the user's or the system's. --key FILE trusts that public key
for every repository and requires a signature from it. The lock itself is
checked against skills.yaml and the manifests it pins (exit 10 naming the
entry), as install does. With neither a policy nor --key, verify refuses to run
(exit 2) rather than call skills whose signatures it never checked ok; to
check only the lock's digests and the installed files, use a policy whose
rule for "*" says 'require: none'.

Exit codes: 2 no trust policy, 9 a policy violation (unsigned, untrusted signer, no provenance),
10 tampering (digest mismatch, edited files), 5 a registry failure. With
GITHUB_ACTIONS set, failures are also printed as ::error annotations.

Examples:
  skillpm verify
  skillpm verify --json
  skillpm verify --key acme.pub ghcr.io/acme/skills/pdf:1.2.0`,
		Flags: append(projectFlags(),
			&cli.StringFlag{Name: "policy", Usage: "trust policy `FILE` (replaces the user config's and skills.yaml's; the system policy still applies)"},
			&cli.StringFlag{Name: "key", Usage: "require a signature by the public key in `FILE`, for every repository"},
		),
		Action: func(c *cli.Context) error { return runVerify(e, c) },
	}
}

// verifyRow is one skill's verification.
type verifyRow struct {
	Name       string   `json:"name,omitempty"`
	Version    string   `json:"version,omitempty"`
	Repository string   `json:"repository"`
	Manifest   string   `json:"manifest"`
	Signer     string   `json:"signer,omitempty"`
	Provenance string   `json:"provenance,omitempty"`
	VettedBy   string   `json:"vettedBy,omitempty"` // the mirror that vetted it
	Status     string   `json:"status"`             // ok, policy, tampered, network, error
	Problems   []string `json:"problems,omitempty"`
	Installed  string   `json:"installed,omitempty"`
	// Vetting is the mirror's verified vetted statement (its checks and
	// audit result), when the policy asked for one.
	Vetting *verify.Vetting `json:"vetting,omitempty"`
	// Policy is the effective trust rule applied: every policy layer's
	// rule for the repository.
	Policy *verify.EffectiveRule `json:"policy,omitempty"`
	code   int
}

func (r *verifyRow) fail(code int, status, format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	if r.code == 0 || severity(code) > severity(r.code) {
		r.code, r.Status = code, status
	}
}

// severity orders failures: tampering over policy over the network.
func severity(code int) int {
	switch code {
	case exitIntegrity:
		return 4
	case exitPolicy:
		return 3
	case exitNetwork:
		return 2
	}
	return 1
}

func runVerify(e *env, c *cli.Context) error {
	client, err := newRegistryClient(e, c)
	if err != nil {
		return err
	}
	fresh := client.Fresh()
	var rows []*verifyRow
	if c.NArg() > 0 {
		var p *project.Manifest
		if c.String("key") == "" && c.String("policy") == "" {
			if p, err = findProject(c); err != nil {
				return err
			}
		}
		v, err := requireVerifier(e, c, projectPolicy(p))
		if err != nil {
			return err
		}
		for _, a := range c.Args().Slice() {
			ref, err := parseRef(c, a)
			if err != nil {
				return err
			}
			rows = append(rows, &verifyRow{Repository: ref.Repo(), Manifest: a})
			checkRef(c.Context, fresh, v, rows[len(rows)-1], ref)
		}
	} else {
		m, err := openManager(e, c, false)
		if err != nil {
			return err
		}
		lock, err := m.ReadLock()
		if err != nil {
			return err
		}
		if lock == nil {
			return fmt.Errorf("%w: %s does not exist (run 'skillpm install' and commit skills.lock)", manager.ErrStaleLock, m.LockPath())
		}
		v, err := requireVerifier(e, c, projectPolicy(m.Project))
		if err != nil {
			return err
		}
		if rows, err = verifyLock(c.Context, client, fresh, v, m, lock); err != nil {
			return err
		}
	}
	return reportVerify(e, rows)
}

// checkRef resolves ref afresh (c reads no cache) and checks the
// signatures of the skill manifest it names, the one 'skillpm sign'
// signs: a range or a bare repository picks its tag as install does,
// and an image index is looked into.
func checkRef(ctx context.Context, c *registry.Client, v *verify.Verifier, row *verifyRow, ref registry.Reference) {
	res, err := c.Resolve(ctx, ref)
	if err != nil {
		failFetch(row, err)
		return
	}
	row.Manifest = res.Ref.Digest.String()
	if row.Version == "" {
		row.Version = res.Version()
	}
	checkSignature(ctx, c, v, row, row.Repository, ref.WithDigest(res.Ref.Digest))
}

func checkSignature(ctx context.Context, c *registry.Client, v *verify.Verifier, row *verifyRow, repo string, ref registry.Reference) {
	if v == nil {
		return
	}
	row.Policy = v.Effective(repo)
	res, err := verify.Check(ctx, c, v, repo, ref)
	if res != nil {
		row.Signer, row.VettedBy, row.Vetting = res.Signer, res.VettedBy, res.Vetting
		if res.Provenance != nil {
			row.Provenance = res.Provenance.SourceRepository
			if row.Provenance == "" {
				row.Provenance = res.Provenance.Builder
			}
		}
	}
	var pe *verify.PolicyError
	switch {
	case errors.As(err, &pe) && pe.Policy != "":
		row.fail(exitPolicy, "policy", "%s (by the %s)", pe.Reason, pe.Policy)
		row.Problems = append(row.Problems, pe.Rejected...)
	case errors.As(err, &pe):
		row.fail(exitPolicy, "policy", "%s", pe.Reason)
		row.Problems = append(row.Problems, pe.Rejected...)
	case err != nil:
		failFetch(row, err)
	}
}

func failFetch(row *verifyRow, err error) {
	switch {
	case errors.Is(err, registry.ErrNetwork), errors.Is(err, registry.ErrUnauthorized):
		row.fail(exitNetwork, "network", "%v", err)
	case errors.Is(err, registry.ErrNotFound):
		row.fail(exitIntegrity, "tampered", "the registry no longer serves %s: %v", row.Manifest, err)
	case errors.Is(err, registry.ErrIntegrity):
		row.fail(exitIntegrity, "tampered", "%v", err)
	default:
		row.fail(exitError, "error", "%v", err)
	}
}

// verifyLock checks the lock against skills.yaml and the manifests it
// pins (manager.CheckLock), then every locked skill in parallel (bounded),
// then the installed files. Each skill is fetched from, and its trust
// rule chosen for, the repository skills.yaml resolves it to, never the
// one the lock claims.
func verifyLock(ctx context.Context, client, fresh *registry.Client, v *verify.Verifier, m *manager.Manager, lock *lockfile.File) ([]*verifyRow, error) {
	var problems []manager.LockProblem
	var le *manager.LockError
	if err := m.CheckLockFiles(lock); errors.As(err, &le) {
		problems = le.Problems
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", m.LockPath(), err)
	}
	rows := make([]*verifyRow, len(lock.Skills))
	rels := map[string]*manager.Release{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for i, s := range lock.Skills {
		repo, err := m.Repository(s.Name)
		if err != nil {
			return nil, err
		}
		row := &verifyRow{Name: s.Name, Version: s.Version, Repository: repo, Manifest: s.Manifest}
		rows[i] = row
		g.Go(func() error {
			ref, err := registry.ParseReference(m.Project.Abs(repo))
			if err != nil {
				row.fail(exitError, "error", "%v", err)
				return nil
			}
			d, err := digest.Parse(s.Manifest)
			if err != nil {
				row.fail(exitIntegrity, "tampered", "locked manifest %q: %v", s.Manifest, err)
				return nil
			}
			ref = ref.WithDigest(d)
			if _, err := fresh.Head(gctx, ref); err != nil {
				failFetch(row, err)
				return nil
			}
			res, err := client.Resolve(gctx, ref)
			if err != nil {
				failFetch(row, err)
				return nil
			}
			mu.Lock()
			rels[s.Name] = manager.ReleaseOf(repo, res)
			mu.Unlock()
			checkSignature(gctx, fresh, v, row, repo, ref)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := manager.CheckPinned(m.Project, lock, rels); errors.As(err, &le) {
		problems = append(problems, le.Problems...)
	} else if err != nil {
		return nil, err
	}
	byName := map[string]*verifyRow{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	for _, p := range problems {
		r := byName[p.Skill]
		if r == nil { // a wanted skill with no entry
			r = &verifyRow{Name: p.Skill}
			byName[p.Skill] = r
			rows = append(rows, r)
		}
		r.fail(exitIntegrity, "tampered", "skills.lock: %s (re-resolve it from skills.yaml: rm skills.lock && skillpm install)", p.Reason)
	}
	states, err := install.Status(m.TargetDirs(), lock, m.StatusOwner(), m.Bounds())
	if err != nil {
		return nil, err
	}
	for _, st := range states {
		r := byName[st.Name]
		if r == nil {
			continue
		}
		switch st.State {
		case install.StateOK:
			if r.Installed == "" {
				r.Installed = "ok"
			}
		case install.StateNotInstalled:
			r.Installed = "not installed"
		case install.StateModified, install.StateOutdated, install.StateMissing:
			r.Installed = string(st.State)
			r.fail(exitIntegrity, "tampered", "%s: installed files do not match the lock (%s)", filepath.Join(st.Target, st.Name), st.State)
		}
	}
	return rows, nil
}

func reportVerify(e *env, rows []*verifyRow) error {
	code, failed := 0, 0
	for _, r := range rows {
		if r.code == 0 {
			r.Status = "ok"
			continue
		}
		failed++
		// The first failure sets the code even at the lowest severity
		// (exitError): a failed row never exits 0.
		if code == 0 || severity(r.code) > severity(code) {
			code = r.code
		}
		if os.Getenv("GITHUB_ACTIONS") == "true" {
			for _, p := range r.Problems {
				fmt.Fprintf(e.stderr, "::error title=skillpm verify %s::%s\n", ghEscape(termLine(r.label())), ghEscape(termText(p)))
			}
		}
	}
	if e.json {
		if err := writeJSON(e.stdout, map[string]any{"ok": failed == 0, "skills": rows}); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		vetted := slices.ContainsFunc(rows, func(r *verifyRow) bool { return r.VettedBy != "" })
		if vetted {
			fmt.Fprintln(tw, "SKILL\tVERSION\tSIGNER\tVETTED BY\tSTATUS")
		} else {
			fmt.Fprintln(tw, "SKILL\tVERSION\tSIGNER\tSTATUS")
		}
		for _, r := range rows {
			if vetted {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termLine(r.label()), termLine(orDash(r.Version)), termLine(orDash(r.Signer)), termLine(orDash(r.VettedBy)), r.Status)
			} else {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termLine(r.label()), termLine(orDash(r.Version)), termLine(orDash(r.Signer)), r.Status)
			}
		}
		tw.Flush()
		for _, r := range rows {
			for _, p := range r.Problems {
				fmt.Fprintf(e.stderr, "%s: %s\n", termLine(r.label()), termText(p))
			}
		}
	}
	if failed == 0 {
		return nil
	}
	if !e.json {
		fmt.Fprintf(e.stderr, "%s %d of %d skills failed verification\n", e.paintErr("error:"), failed, len(rows))
	}
	return &silentError{code: code}
}

func (r *verifyRow) label() string {
	if r.Name != "" {
		return r.Name
	}
	return r.Repository
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ghEscape escapes a GitHub Actions workflow command's data.
func ghEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// findProject loads the project verify REF... runs in, if any: it needs
// no lock, only the policy. nil when there is no skills.yaml.
func findProject(c *cli.Context) (*project.Manifest, error) {
	dir, err := projectDir(c)
	if err != nil {
		return nil, err
	}
	p, err := project.Load(dir)
	if errors.Is(err, project.ErrNotFound) {
		return nil, nil
	}
	return p, err
}
