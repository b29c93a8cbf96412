package main

import (
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/source/git"
	"github.com/skillpm/skillpm/source/wellknown"
	skillsync "github.com/skillpm/skillpm/sync"
	"github.com/skillpm/skillpm/verify"
)

func syncCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "sync",
		Usage: "mirror vetted skills from an upstream registry into an org registry or OCI layouts",
		UsageText: `skillpm sync [options] [--config sync.yaml] [--from PREFIX] [--to PREFIX|oci:DIR]

Copies every version of the repositories under --from (listed with the
registry's catalog API, or 'repositories:' in sync.yaml) that the content
rules select and the policy accepts, with their signature and provenance
referrers, keeping manifest digests. A second run copies only what is new;
a run that fails half-way leaves no tag pointing at missing content, and
the next run finishes the job.

--from may also be a git repository (a git URL, file://, git@host:path,
github.com/OWNER/REPO[/folder], or git+URL; its semver tags are the
versions: v1.2.0 for every skill, pdf/v1.2.0 for one) or a well-known
origin (any other https:// URL: its /.well-known/agent-skills/index.json).
Each version is exported, digest- and archive-checked, packed
reproducibly, then vetted, attested and copied as a registry version is.

Every run ends with a report: copied, skipped, rejected (with the check
and the reason) and failed. Exit status: 0 when nothing was rejected or
failed, 9 when some versions were rejected by the policy, 5 when a
registry failed (run it again), 2 for a bad sync.yaml.

sync.yaml:
  from: ghcr.io/acme/skills
  to: registry.internal/acme-skills      # or oci:/srv/skills
  repositories: [pdf, slugify]           # default: the catalog
  content:                               # default: every version
    - name: "pdf*"                       # glob below 'from'
      versions: ">=1.2 <2"               # semver range
      tags: '^1\.'                       # tag regex
  policy:
    lint: error                          # none, error or warning
    licenses: [MIT, Apache-2.0]
    permissions:
      network: []                        # allowed outbound hosts ("*": any)
      subprocess: false
      filesystem_write: []
      require_declared: false
    audit:                               # 'skillpm audit' must find nothing
      fail_on: high                      # at or above: critical, high, medium, low
    signature:                           # a trusted signer is required:
      keys: [acme.pub]                   # public keys, or
      # policy: trust.yaml               # a trust policy (README: Trust)
  attest:                                # sign "vetted by us" for each version
    key: vetting.key                     # passphrase: SKILLPM_KEY_PASSWORD
    # keyless: true                      # or a Fulcio certificate (CI)

Clients then require the mirror's vetting in their trust policy, under
the prefix their skills.lock names (the upstream one when they read
through mirrors: in their config, else the mirror's):
  rules:
    - prefix: ghcr.io/acme/skills
      vetted:
        keys: [vetting.pub]

A dry run signs nothing and opens no private key; it reads the public key
'skillpm key generate' wrote beside attest.key (vetting.pub) to tell which
of the mirror's vetted attestations are that key's.

Examples:
  skillpm sync --from ghcr.io/acme/skills --to registry.internal/acme-skills
  skillpm sync --config sync.yaml --dry-run
  skillpm sync --config sync.yaml --attest-key vetting.key
  skillpm sync --config sync.yaml --to oci:/media/usb/skills --json
  skillpm sync --from github.com/anthropics/skills --to registry.internal/skills --config sync.yaml
  skillpm sync --from https://example.com/docs --to registry.internal/skills`,
		Flags: append(command.RegistryFlags(),
			&cli.StringFlag{Name: "config", Usage: "read the sync configuration from `FILE` (sync.yaml)"},
			&cli.StringFlag{Name: "from", Usage: "upstream `PREFIX`, git repository or https:// well-known origin (overrides sync.yaml)"},
			&cli.StringFlag{Name: "to", Usage: "mirror `PREFIX` or oci:DIR (overrides sync.yaml)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "vet and print the plan; copy nothing"},
			&cli.StringFlag{Name: "attest-key", Usage: "sign a vetted attestation for each accepted version with the private key in `FILE` (overrides attest: in sync.yaml)"},
			&cli.BoolFlag{Name: "attest-keyless", Usage: "sign the vetted attestations keyless (Fulcio, Rekor; see 'skillpm sign --help')"},
			&cli.StringFlag{Name: "fulcio-url", Value: verify.PublicFulcioURL, Usage: "keyless: Fulcio `URL`"},
			&cli.StringFlag{Name: "rekor-url", Value: verify.PublicRekorURL, Usage: "keyless: Rekor `URL`"},
			&cli.StringFlag{Name: "tsa-url", Usage: "keyless: RFC 3161 timestamp authority `URL`"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return command.UsageErrorf(c, "sync takes no arguments; use --from and --to, or --config")
			}
			cfg := &skillsync.Config{}
			if p := c.String("config"); p != "" {
				var err error
				if cfg, err = skillsync.LoadConfig(p); err != nil {
					return err
				}
			}
			if v := c.String("from"); v != "" {
				cfg.From = v
			}
			if v := c.String("to"); v != "" {
				cfg.To = v
			}
			if cfg.From == "" || cfg.To == "" {
				return command.UsageErrorf(c, "sync needs --from and --to (or from: and to: in --config FILE)")
			}
			ro, err := command.ReadRegistryOptions(c)
			if err != nil {
				return err
			}
			client, err := registryClient(e, ro)
			if err != nil {
				return err
			}
			opts := skillsync.Options{Config: cfg, Client: client.WithoutMirrors(), DryRun: c.Bool("dry-run"), Sigstore: sigstoreBackend(e)}
			gitc, wk, err := sourceClients(e, ro, cfg.From)
			if err != nil {
				return err
			}
			if opts.Upstream, err = skillsync.ParseUpstream(cfg.From, gitc, wk); err != nil {
				return err
			}
			if sp := cfg.Policy.Signature; sp != nil {
				if err := needSigstore(); err != nil {
					return err
				}
				if opts.Verifier, err = skillsync.NewTrustVerifier(opts.Client, sp, sigstoreBackend(e)); err != nil {
					return err
				}
			}
			if key, keyless := c.String("attest-key"), c.Bool("attest-keyless"); key != "" || keyless {
				cfg.Attest = &skillsync.AttestConfig{Key: key, Keyless: keyless}
			}
			// A dry run plans the attestations from cfg.Attest; it signs
			// nothing, so it asks for no passphrase. The public key
			// 'skillpm key generate' wrote beside the private one tells it
			// which of the mirror's attestations that key signed.
			if a := cfg.Attest; a != nil && !opts.DryRun {
				if opts.Attester, err = signerFor(e, c, a.Key, a.Keyless, "--attest-key", "--attest-keyless"); err != nil {
					return err
				}
			} else if a != nil && a.Key != "" {
				if data, err := os.ReadFile(strings.TrimSuffix(a.Key, ".key") + ".pub"); err == nil {
					if pub, err := verify.ParsePublicKey(data); err == nil {
						opts.AttestKey = pub
					}
				}
			}
			if e.Debug {
				opts.Log = e.Stderr
			}
			rep, runErr := skillsync.Run(c.Context, opts)
			if rep != nil {
				if e.JSON {
					if err := command.WriteJSON(e.Stdout, rep); err != nil {
						return err
					}
				} else if !e.Quiet || runErr != nil {
					var buf strings.Builder
					if err := rep.Write(&buf); err != nil {
						return err
					}
					if _, err := io.WriteString(e.Stdout, command.TermText(buf.String())); err != nil {
						return err
					}
				}
			}
			return runErr
		},
	}
}

// sourceClients are the git and well-known clients for an upstream that
// is not a registry: caches under skillpm's cache, the user config's
// limits and timeouts, and plain http for the hosts plain_http lists (and
// the upstream's own with --plain-http).
func sourceClients(e *command.Env, ro command.RegistryOptions, from string) (*git.Client, *wellknown.Client, error) {
	cfg, err := e.UserConfig()
	if err != nil {
		return nil, nil, err
	}
	tos := httpTimeouts(ro.Over(cfg.Timeouts))
	dir, err := command.CacheDir()
	if err != nil {
		return nil, nil, err
	}
	lim := registryLimits(cfg)
	wk := &wellknown.Client{
		CacheDir:     filepath.Join(dir, "wellknown"),
		Limits:       lim,
		Timeouts:     tos,
		PlainHTTP:    cfg.PlainHTTP,
		AllowOrigins: cfg.AllowOrigins,
		UserAgent:    "skillpm/" + command.Version,
	}
	if ro.PlainHTTP {
		if u, err := url.Parse(strings.TrimPrefix(from, "wellknown+")); err == nil && u.Host != "" {
			wk.PlainHTTP = append(append([]string{}, wk.PlainHTTP...), u.Host)
		}
	}
	gitc := &git.Client{CacheDir: filepath.Join(dir, "git"), Limits: lim, Stall: tos.Stall, Connect: tos.Connect}
	return gitc, wk, nil
}
