package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/verify"
)

func verifyCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "check locked (or given) skills against the registry, the trust policy and the installed files",
		UsageText: `skillpm verify [options] [REF...]

Without REFs, for every skill of skills.lock: the registry still serves the
locked manifest digest and every blob it names (config and content, with
their sizes; --deep downloads them and checks their digests), a signature
satisfies the trust policy, and the skill is installed with the locked
files. With REFs,
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
10 tampering (digest mismatch, a missing blob, edited files), 5 a registry failure,
14 a locked skill that is not installed (run 'skillpm install'). With
GITHUB_ACTIONS set, failures are also printed as ::error annotations.

Examples:
  skillpm verify
  skillpm verify --json
  skillpm verify --deep        # download every locked blob and check its digest
  skillpm verify --key acme.pub ghcr.io/acme/skills/pdf:1.2.0`,
		Flags: append(command.ProjectFlags(),
			&cli.StringFlag{Name: "policy", Usage: "trust policy `FILE` (replaces the user config's and skills.yaml's; the system policy still applies)"},
			&cli.StringFlag{Name: "key", Usage: "require a signature by the public key in `FILE`, for every repository"},
			&cli.BoolFlag{Name: "deep", Usage: "download every locked blob and check its digest (default: ask the registry for each blob's size)"},
		),
		Action: func(c *cli.Context) error { return runVerify(e, c) },
	}
}

// verifyOptions are verify's flags.
type verifyOptions struct {
	refs     []string                // REF arguments; none checks the lock
	deep     bool                    // --deep
	trust    trustOptions            // --key, --policy
	registry command.RegistryOptions // the registry flags
}

func runVerify(e *command.Env, c *cli.Context) error {
	o := verifyOptions{refs: c.Args().Slice(), deep: c.Bool("deep"), trust: readTrustOptions(c)}
	if len(o.refs) > 0 {
		ro, err := command.ReadRegistryOptions(c)
		if err != nil {
			return err
		}
		o.registry = ro
		return verifyRefs(e, c, o)
	}
	oo, err := readOpenOptions(c)
	if err != nil {
		return err
	}
	m, err := openManager(e, oo)
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
	v, err := requireVerifier(e, o.trust, projectPolicy(m.Project))
	if err != nil {
		return err
	}
	rs, ok := m.Registry.(*manager.RegistrySource)
	if !ok {
		return fmt.Errorf("verify needs a registry client")
	}
	reports, err := m.Verify(c.Context, lock, manager.VerifyOptions{
		Trust: &verify.Trust{Client: rs.Client.Fresh(), Verifier: v},
		Lock:  verify.LockOptions{Resolver: rs.Client, Deep: o.deep},
	})
	if err != nil {
		return err
	}
	return reportVerify(e, reports)
}

// verifyRefs checks the signatures of the manifests the REFs name.
func verifyRefs(e *command.Env, c *cli.Context, o verifyOptions) error {
	client, err := registryClient(e, o.registry)
	if err != nil {
		return err
	}
	var p *project.Manifest
	if o.trust == (trustOptions{}) {
		if p, err = findProject(c); err != nil {
			return err
		}
	}
	v, err := requireVerifier(e, o.trust, projectPolicy(p))
	if err != nil {
		return err
	}
	t := &verify.Trust{Client: client.Fresh(), Verifier: v}
	var reports []*verify.Report
	for _, a := range o.refs {
		ref, err := parseRef(c, a)
		if err != nil {
			return err
		}
		reports = append(reports, t.Ref(c.Context, ref, a))
	}
	return reportVerify(e, reports)
}

func reportVerify(e *command.Env, rows []*verify.Report) error {
	failed := 0
	for _, r := range rows {
		if !r.Failed() {
			r.Status = verify.StatusOK
			continue
		}
		failed++
		if os.Getenv("GITHUB_ACTIONS") == "true" {
			for _, p := range r.Problems {
				fmt.Fprintf(e.Stderr, "::error title=skillpm verify %s::%s\n", ghEscape(command.TermLine(label(r))), ghEscape(command.TermText(p)))
			}
		}
	}
	// The most severe status sets the code; a failed row never exits 0.
	code := verifyExitCode(worst(rows))
	if e.JSON {
		if err := command.WriteJSON(e.Stdout, map[string]any{"ok": failed == 0, "skills": rows}); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(e.Stdout, 0, 0, 2, ' ', 0)
		vetted := slices.ContainsFunc(rows, func(r *verify.Report) bool { return r.VettedBy != "" })
		if vetted {
			fmt.Fprintln(tw, "SKILL\tVERSION\tSIGNER\tVETTED BY\tSTATUS")
		} else {
			fmt.Fprintln(tw, "SKILL\tVERSION\tSIGNER\tSTATUS")
		}
		for _, r := range rows {
			if vetted {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", command.TermLine(label(r)), command.TermLine(command.OrDash(r.Version)), command.TermLine(command.OrDash(r.Signer)), command.TermLine(command.OrDash(r.VettedBy)), r.Status)
			} else {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", command.TermLine(label(r)), command.TermLine(command.OrDash(r.Version)), command.TermLine(command.OrDash(r.Signer)), r.Status)
			}
		}
		tw.Flush()
		for _, r := range rows {
			for _, p := range r.Problems {
				fmt.Fprintf(e.Stderr, "%s: %s\n", command.TermLine(label(r)), command.TermText(p))
			}
		}
	}
	if failed == 0 {
		return nil
	}
	if !e.JSON {
		fmt.Fprintf(e.Stderr, "%s %d of %d skills failed verification\n", e.PaintErr("error:"), failed, len(rows))
	}
	return &command.SilentError{Code: code}
}

// worst is the most severe status among rows.
func worst(rows []*verify.Report) verify.Status {
	w := verify.StatusOK
	for _, r := range rows {
		if r.Status.Severity() > w.Severity() {
			w = r.Status
		}
	}
	return w
}

func label(r *verify.Report) string {
	if r.Name != "" {
		return r.Name
	}
	return r.Repository
}

// ghEscape escapes a GitHub Actions workflow command's data.
func ghEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// findProject loads the project verify REF... runs in, if any: it needs
// no lock, only the policy. nil when there is no skills.yaml.
func findProject(c *cli.Context) (*project.Manifest, error) {
	dir, err := command.ProjectDir(c)
	if err != nil {
		return nil, err
	}
	p, err := project.Load(dir)
	if errors.Is(err, project.ErrNotFound) {
		return nil, nil
	}
	return p, err
}
