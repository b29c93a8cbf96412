package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/registry"
)

func signCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "sign",
		Usage: "sign a published skill and attach the signature to it",
		UsageText: `skillpm sign [options] REF

Signs the skill manifest REF names (a tag is resolved to its digest first)
and attaches the signature as an OCI referrer: a sigstore bundle holding a
DSSE in-toto statement about the manifest digest, as 'cosign sign' writes it
in the new bundle format. Registries without the referrers API get the
sha256-<hex> tag index.

Examples:
  skillpm sign --key skillpm.key ghcr.io/acme/skills/pdf:1.2.0
  skillpm sign --keyless ghcr.io/acme/skills/pdf@sha256:...      # in CI`,
		Flags: append(signFlags(), command.RegistryFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return command.UsageErrorf(c, "sign takes one reference")
			}
			ref, err := parseRef(c, c.Args().First())
			if err != nil {
				return err
			}
			s, err := newSigner(e, c)
			if err != nil {
				return err
			}
			ro, err := command.ReadRegistryOptions(c)
			if err != nil {
				return err
			}
			client, err := registryClient(e, ro)
			if err != nil {
				return err
			}
			res, err := client.Resolve(c.Context, ref)
			if err != nil {
				return err
			}
			desc, err := attachSignature(c.Context, client, s, res.Ref)
			if err != nil {
				return err
			}
			return printSigned(e, res.Ref, desc)
		},
	}
}

// printSigned reports the signature sign attached to ref.
func printSigned(e *command.Env, ref registry.Reference, desc string) error {
	if e.JSON {
		return command.WriteJSON(e.Stdout, map[string]any{"reference": ref.String(), "digest": ref.Digest, "signature": desc})
	}
	if !e.Quiet {
		fmt.Fprintf(e.Stdout, "signed %s\nsignature %s\n", ref, desc)
	}
	return nil
}
