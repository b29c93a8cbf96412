package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/verify"
)

func inspectCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "inspect",
		Usage: "show a skill artifact's manifest, config, annotations and referrers",
		UsageText: `skillpm inspect [options] REF

Reads the manifest and config only; no content is downloaded. Referrers are
the signatures, attestations and SBOMs attached to the manifest.

Examples:
  skillpm inspect ghcr.io/acme/skills/pdf:1.2.0
  skillpm inspect --json oci:./registry/pdf`,
		Flags: command.RegistryFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return command.UsageErrorf(c, "inspect takes one reference")
			}
			ref, err := parseRef(c, c.Args().First())
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
			in, err := client.Inspect(c.Context, ref)
			if errors.Is(err, registry.ErrNotSkill) {
				if col, ok, cerr := client.ReadCollection(c.Context, ref); cerr == nil && ok {
					return printCollection(e, col) // collection.go
				}
			}
			if err != nil {
				return err
			}
			claims := verify.DescribeReferrers(c.Context, sigstoreBackend(e), client, in)
			if e.JSON {
				out := inspectJSON(in)
				out["signatures"] = claims
				return command.WriteJSON(e.Stdout, out)
			}
			printInspect(e, in, claims)
			return nil
		},
	}
}

func inspectJSON(in *registry.Inspection) map[string]any {
	out := map[string]any{
		"reference":    in.Ref.String(),
		"digest":       in.Ref.Digest,
		"name":         in.Name(),
		"version":      in.Version(),
		"format":       in.Layout.Format,
		"artifactType": in.Layout.ArtifactType,
		"manifest":     json.RawMessage(in.ManifestJSON),
		"annotations":  in.Layout.Annotations,
		"referrers":    in.Referrers,
	}
	if in.Layout.Note != "" {
		out["note"] = in.Layout.Note
	}
	if in.Index != nil {
		out["index"] = in.Index
	}
	if in.ConfigJSON != nil {
		out["config"] = json.RawMessage(in.ConfigJSON)
	}
	return out
}

// printInspect prints in for people. Every string in it came from the
// registry or the layout folder, digests too (checked by the registry
// client, but a layout's referrers are not): all are escaped.
func printInspect(e *command.Env, in *registry.Inspection, claims map[string]*verify.Claim) {
	w := e.Stdout
	fmt.Fprintf(w, "Reference:     %s\n", command.TermLine(in.Ref.String()))
	fmt.Fprintf(w, "Digest:        %s\n", command.TermLine(in.Ref.Digest.String()))
	if in.Index != nil {
		fmt.Fprintf(w, "Index:         %s\n", command.TermLine(in.Index.Digest.String()))
	}
	fmt.Fprintf(w, "Format:        %s\n", command.TermLine(string(in.Layout.Format)))
	if in.Layout.Note != "" {
		fmt.Fprintf(w, "Note:          %s\n", command.TermLine(in.Layout.Note))
	}
	fmt.Fprintf(w, "Artifact type: %s\n", command.TermLine(command.OrNone(in.Layout.ArtifactType)))
	fmt.Fprintf(w, "Config:        %s %s (%d bytes)\n", command.TermLine(in.Layout.Config.MediaType), command.TermLine(in.Layout.Config.Digest.String()), in.Layout.Config.Size)
	if cfg := in.Config; cfg != nil {
		fmt.Fprintf(w, "  name:        %s\n  version:     %s\n", command.TermLine(cfg.Name), command.TermLine(command.OrNone(cfg.Version)))
		if cfg.Description != "" {
			fmt.Fprintf(w, "  description: %s\n", command.TermLine(cfg.Description))
		}
		if cfg.License != "" {
			fmt.Fprintf(w, "  license:     %s\n", command.TermLine(cfg.License))
		}
		for _, d := range cfg.DependsOn {
			fmt.Fprintf(w, "  depends on:  %s\n", command.TermLine(fmt.Sprint(d)))
		}
		for _, t := range cfg.Tools {
			fmt.Fprintf(w, "  tool:        %s\n", command.TermLine(t.Name))
		}
	}
	fmt.Fprintln(w, "Layers:")
	for _, l := range in.Layout.Layers {
		fmt.Fprintf(w, "  %s %s (%s)\n", command.TermLine(l.MediaType), command.TermLine(l.Digest.String()), command.HumanBytes(l.Size))
	}
	if len(in.Layout.Annotations) > 0 {
		fmt.Fprintln(w, "Annotations:")
		keys := make([]string, 0, len(in.Layout.Annotations))
		for k := range in.Layout.Annotations {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  %s: %s\n", command.TermLine(k), command.TermLine(in.Layout.Annotations[k]))
		}
	}
	fmt.Fprintf(w, "Referrers:     %d\n", len(in.Referrers))
	for _, r := range in.Referrers {
		if cl := claims[r.Digest.String()]; cl != nil {
			kind := cl.PredicateType
			switch kind {
			case verify.PredicateSign:
				kind = "signature"
			case verify.PredicateSLSAProvenance:
				kind = "provenance"
			}
			fmt.Fprintf(w, "  %s %s signed by %s (unverified; see 'skillpm verify')\n", command.TermLine(kind), command.TermLine(r.Digest.String()), command.TermLine(cl.Signer))
			continue
		}
		fmt.Fprintf(w, "  %s %s\n", command.TermLine(command.OrNone(r.ArtifactType)), command.TermLine(r.Digest.String()))
	}
}
