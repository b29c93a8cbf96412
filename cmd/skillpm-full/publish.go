package main

import (
	"fmt"
	"time"

	"github.com/skillpm/skillpm/internal/command"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/audit"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/ociref"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/verify"
)

type publishOptions struct {
	dir     string
	repo    registry.Reference
	version string
	force   bool
	// sign attaches a signature, provenance an SLSA provenance
	// attestation, both signed as signFlags say.
	sign, provenance bool
	// allowAudit publishes despite critical audit findings.
	allowAudit bool
	// registry is the registry flag group.
	registry command.RegistryOptions
}

func publishCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "publish",
		Usage: "lint, pack and push a skill to an OCI registry or layout folder",
		UsageText: `skillpm publish [options] DIR... REPOSITORY|PREFIX
skillpm publish --collection NAME [options] REF SKILL_REF...

REPOSITORY is written as oras and helm write it
(registry.example.com/org/skills/pdf) or oci:PATH for an OCI image layout
folder, and its last segment is the skill's name. Given a PREFIX instead
(ghcr.io/acme/skills, oci:./registry), the skill's name is appended, as
'helm push' does; a repository named for another skill is refused. The
tag is the skill's version (frontmatter version, or --version;
"+" is written "_"); without either, the semver tag at HEAD of the
folder's git repository (NAME/v1.2.0 or NAME@1.2.0 for this skill, else
v1.2.0). Several folders publish each under PREFIX/<name>, one after the
other, stopping at the first that fails (--json prints a list). The skill is linted first; publishing stops on lint
errors. With --test, the skill's evaluation.smoke_tests run next (as
'skillpm test DIR') and publishing stops when one fails (exit 12). It is
then audited ('skillpm audit'): high and critical findings are printed, and
critical ones stop the publish (exit 13) unless suppressed with a reason or
--allow-audit-findings is given. An existing version is never moved to different content unless
--force is given; publishing identical content again changes nothing.

With --collection NAME, REF is the collection's repository and tag (default
"latest") and each SKILL_REF a published skill: their manifests are copied
into REF's repository and listed, pinned by digest, in an image index of
artifactType application/vnd.agentskills.collection.v1 ('skillpm add REF'
adds every skill of it).

Examples:
  skillpm publish ./pdf ghcr.io/acme/skills        # to ghcr.io/acme/skills/pdf
  skillpm publish ./skills/* ghcr.io/acme/skills   # each to ghcr.io/acme/skills/<name>
  skillpm publish ./pdf ghcr.io/acme/skills/pdf
  skillpm publish ./pdf oci:./registry             # to the layout folder ./registry/pdf
  skillpm publish --plain-http ./pdf 127.0.0.1:5000/skills/pdf --version 1.2.1
  skillpm publish --sign --provenance --key skillpm.key ./pdf ghcr.io/acme/skills/pdf
  skillpm publish --test ./pdf oci:./registry/pdf
  skillpm publish --collection starter ghcr.io/acme/collections/starter:1.0.0 \
      ghcr.io/acme/skills/pdf:1.2.0 ghcr.io/acme/skills/docx:2.0.1`,
		Flags: append(append([]cli.Flag{
			&cli.StringFlag{Name: "version", Usage: "publish as `VERSION` instead of the frontmatter version"},
			&cli.BoolFlag{Name: "force", Usage: "move an existing version tag to this content"},
			&cli.BoolFlag{Name: "sign", Usage: "sign the published manifest (with --key FILE or --keyless)"},
			&cli.BoolFlag{Name: "provenance", Usage: "attach signed SLSA provenance (git source and revision, builder, digests)"},
			&cli.BoolFlag{Name: "test", Usage: "run the skill's smoke tests first and publish only if they pass"},
			&cli.BoolFlag{Name: "allow-audit-findings", Usage: "publish even when the audit finds critical problems"},
			collectionFlag,
		}, signFlags()...), command.RegistryFlags()...),
		Action: func(c *cli.Context) error {
			if name := c.String("collection"); name != "" {
				return runPublishCollection(c, e, name)
			}
			if c.NArg() < 2 {
				return command.UsageErrorf(c, "publish takes skill folders and a repository or prefix")
			}
			args := c.Args().Slice()
			dirs, target := args[:len(args)-1], args[len(args)-1]
			repo, err := parseRef(c, target)
			if err != nil {
				return err
			}
			if repo.Digest != "" || repo.Range != "" {
				return command.UsageErrorf(c, "publish takes a repository, not a digest or range: the tag is the skill's version")
			}
			ro, err := command.ReadRegistryOptions(c)
			if err != nil {
				return err
			}
			opts := publishOptions{repo: repo, version: c.String("version"), force: c.Bool("force"), sign: c.Bool("sign"), provenance: c.Bool("provenance"), allowAudit: c.Bool("allow-audit-findings"), registry: ro}
			if len(dirs) > 1 {
				if repo.Tag != "" {
					return command.UsageErrorf(c, "several folders publish under a prefix, each at its own version: drop the tag %q", repo.Tag)
				}
				return publishMany(c, e, dirs, opts)
			}
			opts.dir = dirs[0]
			if repo.Tag != "" {
				if opts.version != "" && ociref.EscapeTag(opts.version) != repo.Tag {
					return command.UsageErrorf(c, "tag %q and --version %q disagree", repo.Tag, opts.version)
				}
				v, ok := ociref.VersionFromTag(repo.Tag)
				if !ok {
					return command.UsageErrorf(c, "tag %q is not a semver version; publish tags skills with their version", repo.Tag)
				}
				opts.version = v.Original()
			}
			signer, err := publishSigner(c, e, opts)
			if err != nil {
				return err
			}
			out, err := runPublish(c, e, opts, signer)
			if err != nil {
				return err
			}
			if e.JSON {
				return command.WriteJSON(e.Stdout, out)
			}
			return nil
		},
	}
}

// publishSigner opens the signing key once, when signing is asked for.
func publishSigner(c *cli.Context, e *command.Env, opts publishOptions) (*verify.Signer, error) {
	if opts.sign || opts.provenance {
		return newSigner(e, c)
	}
	return nil, nil
}

// runPublish publishes opts.dir and returns its JSON report; without
// --json it prints the text one.
func runPublish(c *cli.Context, e *command.Env, opts publishOptions, signer *verify.Signer) (map[string]any, error) {
	started := time.Now()
	// A path that is not a skill at all is "not found" (exit 4), as with
	// lint; a skill with lint errors is invalid (exit 3).
	if _, err := skill.Find(opts.dir); err != nil {
		return nil, err
	}
	l, err := skill.NewLinter()
	if err != nil {
		return nil, err
	}
	res := l.Lint(opts.dir, skill.LintOptions{})
	if res.Errors() > 0 {
		printLint(e, []*skill.Result{res}, res.Errors(), res.Warnings())
		return nil, &command.SilentError{Code: command.ExitInvalid}
	}
	if c.Bool("test") {
		if err := publishSmokeTests(c.Context, e, c, res.Skill); err != nil {
			return nil, err
		}
	}
	if opts.version == "" && res.Skill != nil && res.Skill.Frontmatter.Version == "" {
		opts.version = headTagVersion(c.Context, opts.dir, res.Skill.Frontmatter.Name)
	}
	rep, err := auditBeforePublish(c, e, opts)
	if err != nil {
		return nil, err
	}
	created, err := createdTime()
	if err != nil {
		return nil, err
	}
	lim, err := packLimits(e)
	if err != nil {
		return nil, err
	}
	p, err := registry.Pack(c.Context, opts.dir, registry.PackOptions{Version: opts.version, Created: created, Limits: lim})
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if p.Version == "" {
		return nil, command.UsageErrorf(c, "%s has no version: set version in its SKILL.md frontmatter, pass --version, or tag HEAD (v1.2.0)", opts.dir)
	}
	client, err := registryClient(e, opts.registry)
	if err != nil {
		return nil, err
	}
	if opts.repo, err = client.PublishRepository(c.Context, opts.repo, p.Name); err != nil {
		return nil, err
	}
	pub, err := client.Publish(c.Context, p, opts.repo, registry.PublishOptions{Force: opts.force})
	if err != nil {
		return nil, err
	}
	var sig, prov string
	if opts.sign {
		if sig, err = attachSignature(c.Context, client, signer, pub.Ref); err != nil {
			return nil, fmt.Errorf("published %s, but signing failed: %w", pub.Ref, err)
		}
	}
	if opts.provenance {
		pr := buildProvenance(c.Context, opts.dir, p, started)
		a, err := signer.Attest(c.Context, pub.Ref.Repo(), pub.Ref.Digest, verify.PredicateSLSAProvenance, pr.Predicate())
		if err == nil {
			var d ocispec.Descriptor
			d, err = verify.Attach(c.Context, client, pub.Ref.WithDigest(pub.Ref.Digest), a, started)
			prov = d.Digest.String()
		}
		if err != nil {
			return nil, fmt.Errorf("published %s, but attaching provenance failed: %w", pub.Ref, err)
		}
	}
	out := map[string]any{
		"name": p.Name, "version": p.Version, "reference": pub.Ref.String(),
		"repository": opts.repo.Repo(), "tag": pub.Ref.Tag, "digest": pub.Ref.Digest,
		"unchanged": pub.Unchanged,
		"audit":     map[string]any{"rulesVersion": rep.RulesVersion, "worst": rep.Worst(), "counts": rep.Counts()},
	}
	if sig != "" {
		out["signature"] = sig
	}
	if prov != "" {
		out["provenance"] = prov
	}
	if !e.JSON && !e.Quiet {
		verb := "published"
		if pub.Unchanged {
			verb = "unchanged (already published)"
		}
		fmt.Fprintf(e.Stdout, "%s %s %s\n%s\n", verb, p.Name, p.Version, pub.Ref)
		if sig != "" {
			fmt.Fprintf(e.Stdout, "signature %s\n", sig)
		}
		if prov != "" {
			fmt.Fprintf(e.Stdout, "provenance %s\n", prov)
		}
	}
	return out, nil
}

// auditBeforePublish prints the audit's high and critical findings and
// refuses critical ones unless opts.allowAudit. The folder is the
// author's own: inline suppressions count, as does the project's
// allow-list.
func auditBeforePublish(c *cli.Context, e *command.Env, opts publishOptions) (*audit.Report, error) {
	allow, err := loadAllowList(c, "")
	if err != nil {
		return nil, err
	}
	rep, err := audit.Scan(c.Context, opts.dir, audit.Options{Inline: true, AllowList: allow})
	if err != nil {
		return nil, err
	}
	printAuditFindings(e, rep, audit.High)
	n := rep.Count(audit.Critical)
	if n == 0 {
		return rep, nil
	}
	if opts.allowAudit {
		e.Logf("warning: publishing %s with %s (--allow-audit-findings)", opts.dir, command.Plural(n, "critical audit finding"))
		return rep, nil
	}
	return nil, fmt.Errorf("publish %s: %w: %s", opts.dir, audit.ErrFindings, command.Plural(n, "critical finding"))
}
