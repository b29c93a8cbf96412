package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/ociref"
)

type packOptions struct {
	dir     string
	output  string
	version string
	force   bool
}

func packCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "pack",
		Usage: "pack a skill folder into a reproducible OCI artifact without publishing it",
		UsageText: `skillpm pack [options] DIR

Writes the skill's content layer (a reproducible tar+gzip) to FILE, by
default NAME-VERSION.tar.gz in the current folder, or the whole artifact
(manifest, config and layer, tagged with the version) to an OCI image
layout folder with -o oci:PATH. A tag already in the layout is never
moved to different content unless --force is given. The same folder
always gives the same digests; set SOURCE_DATE_EPOCH to stamp a creation
time.

Examples:
  skillpm pack ./pdf
  skillpm pack ./pdf -o oci:./registry/pdf
  skillpm pack --json ./pdf -o /tmp/pdf.tar.gz`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` or oci:PATH"},
			&cli.StringFlag{Name: "version", Usage: "pack as `VERSION` instead of the frontmatter version"},
			&cli.BoolFlag{Name: "force", Usage: "with -o oci:PATH, move an existing tag to this content"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return command.UsageErrorf(c, "pack takes one skill folder")
			}
			return runPack(c, e, packOptions{dir: c.Args().First(), output: c.String("output"), version: c.String("version"), force: c.Bool("force")})
		},
	}
}

func runPack(c *cli.Context, e *command.Env, opts packOptions) error {
	created, err := createdTime()
	if err != nil {
		return err
	}
	lim, err := packLimits(e)
	if err != nil {
		return err
	}
	popts := registry.PackOptions{Version: opts.version, Created: created, Limits: lim}
	if opts.output != "" && !strings.HasPrefix(opts.output, ociref.LayoutPrefix) {
		if rel, ok := inside(opts.dir, opts.output); ok {
			popts.Ignore = append(popts.Ignore, rel)
		}
	}
	p, err := registry.Pack(c.Context, opts.dir, popts)
	if err != nil {
		return err
	}
	defer p.Close()
	out := opts.output
	switch {
	case strings.HasPrefix(out, ociref.LayoutPrefix):
		ref, err := parseRef(c, out)
		if err != nil {
			return err
		}
		client := registry.NewClient(registry.Options{})
		pub, err := client.Publish(c.Context, p, ref, registry.PublishOptions{Tag: packTag(p), Force: opts.force})
		if err != nil {
			return err
		}
		out = pub.Ref.String()
	default:
		if out == "" {
			out = p.Name + ".tar.gz"
			if p.Version != "" {
				out = p.Name + "-" + p.Version + ".tar.gz"
			}
		}
		if err := copyLayer(p, out); err != nil {
			return err
		}
	}
	if e.JSON {
		return command.WriteJSON(e.Stdout, map[string]any{
			"name": p.Name, "version": p.Version, "output": out,
			"manifest": p.Manifest.Digest, "config": p.ConfigDesc.Digest, "layer": p.Layer.Digest,
			"size": p.Layer.Size, "files": p.Stats.Files, "bytes": p.Stats.Bytes,
		})
	}
	if !e.Quiet {
		fmt.Fprintf(e.Stdout, "packed %s %s: %d files, %s unpacked, %s packed\n", p.Name, command.OrNone(p.Version), p.Stats.Files, command.HumanBytes(p.Stats.Bytes), command.HumanBytes(p.Layer.Size))
		fmt.Fprintf(e.Stdout, "manifest %s\nlayer    %s\nwrote    %s\n", p.Manifest.Digest, p.Layer.Digest, out)
	}
	return nil
}

// packTag is the tag pack writes into a layout: the version, or latest.
func packTag(p *registry.Package) string {
	if p.Version == "" {
		return "latest"
	}
	return ociref.EscapeTag(p.Version)
}

// copyLayer writes the spooled layer to path, atomically.
func copyLayer(p *registry.Package, path string) error {
	r, err := p.OpenLayer()
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.CreateTemp(filepath.Dir(path), ".skillpm-pack-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// inside returns path relative to dir when it lies inside it.
func inside(dir, path string) (string, bool) {
	ad, err1 := filepath.Abs(dir)
	ap, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return "", false
	}
	rel, err := filepath.Rel(ad, ap)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}
