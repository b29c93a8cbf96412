package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/internal/httpbound"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/verify"
)

// signFlags choose how to sign; shared by sign and publish.
func signFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "key", Usage: "sign with the private key in `FILE` (from 'skillpm key generate'; passphrase from SKILLPM_KEY_PASSWORD or a prompt)"},
		&cli.BoolFlag{Name: "keyless", Usage: "sign keyless: a Fulcio certificate for an OIDC identity (SIGSTORE_ID_TOKEN or GitHub Actions), logged in Rekor"},
		&cli.StringFlag{Name: "fulcio-url", Value: verify.PublicFulcioURL, Usage: "keyless: Fulcio `URL`"},
		&cli.StringFlag{Name: "rekor-url", Value: verify.PublicRekorURL, Usage: "keyless: Rekor `URL`"},
		&cli.StringFlag{Name: "tsa-url", Usage: "keyless: RFC 3161 timestamp authority `URL` (full endpoint; none by default)"},
	}
}

// newSigner builds the signer the flags ask for.
func newSigner(e *env, c *cli.Context) (*verify.Signer, error) {
	return signerFor(e, c, c.String("key"), c.Bool("keyless"), "--key", "--keyless")
}

// signerFor builds a signer for a private key file or keyless signing
// (with the keyless URL flags of c); keyFlag and keylessFlag name the
// options in errors.
func signerFor(e *env, c *cli.Context, key string, keyless bool, keyFlag, keylessFlag string) (*verify.Signer, error) {
	switch {
	case key != "" && keyless:
		return nil, usageErrorf(c, "give %s or %s, not both", keyFlag, keylessFlag)
	case key != "":
		data, err := os.ReadFile(key)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &usageError{msg: fmt.Sprintf("%s %s: no such file", keyFlag, key), hint: "make a key pair with 'skillpm key generate --output-prefix NAME'"}
		}
		if err != nil {
			return nil, err
		}
		pass, err := passphrase(e, false)
		if err != nil {
			return nil, err
		}
		kp, err := verify.LoadPrivateKey(data, pass)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if err := needSigstore(); err != nil {
			return nil, err
		}
		return verify.NewSigner(verify.SignerOptions{Keypair: kp, Sigstore: e.sigstore()})
	case keyless:
		if err := needSigstore(); err != nil {
			return nil, err
		}
		tok, err := idToken(c.Context)
		if err != nil {
			return nil, err
		}
		return verify.NewKeylessSigner(verify.KeylessOptions{
			FulcioURL: c.String("fulcio-url"), RekorURL: c.String("rekor-url"), TSAURL: c.String("tsa-url"), IDToken: tok,
			Sigstore: e.sigstore(),
		})
	}
	return nil, usageErrorf(c, "say how to sign: %s FILE or %s", keyFlag, keylessFlag)
}

// idToken finds an OIDC identity token: SIGSTORE_ID_TOKEN, else the
// GitHub Actions token endpoint (a workflow with id-token: write).
func idToken(ctx context.Context) (string, error) {
	if t := os.Getenv("SIGSTORE_ID_TOKEN"); t != "" {
		return t, nil
	}
	u, bearer := os.Getenv("ACTIONS_ID_TOKEN_REQUEST_URL"), os.Getenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN")
	if u == "" || bearer == "" {
		return "", errors.New("keyless signing needs an identity token: set SIGSTORE_ID_TOKEN, or run in GitHub Actions with 'permissions: id-token: write'")
	}
	ru, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	q := ru.Query()
	q.Set("audience", "sigstore")
	ru.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ru.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	// Bounded in time like every client skillpm builds (default timeouts).
	hc := &http.Client{Transport: httpbound.Wrap(httpbound.NewTransport(httpbound.Timeouts{}), httpbound.Timeouts{})}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("GitHub Actions identity token: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		Value string `json:"value"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out) != nil || out.Value == "" {
		return "", fmt.Errorf("GitHub Actions identity token: %s", resp.Status)
	}
	return out.Value, nil
}

func signCommand(e *env) *cli.Command {
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
		Flags: append(signFlags(), registryFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf(c, "sign takes one reference")
			}
			ref, err := parseRef(c, c.Args().First())
			if err != nil {
				return err
			}
			s, err := newSigner(e, c)
			if err != nil {
				return err
			}
			ro, err := readRegistryOptions(c)
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
func printSigned(e *env, ref registry.Reference, desc string) error {
	if e.json {
		return writeJSON(e.stdout, map[string]any{"reference": ref.String(), "digest": ref.Digest, "signature": desc})
	}
	if !e.quiet {
		fmt.Fprintf(e.stdout, "signed %s\nsignature %s\n", ref, desc)
	}
	return nil
}

// attachSignature signs ref's digest and attaches the bundle.
func attachSignature(ctx context.Context, client *registry.Client, s *verify.Signer, ref registry.Reference) (string, error) {
	a, err := s.Sign(ctx, ref.Repo(), ref.Digest)
	if err != nil {
		return "", err
	}
	d, err := verify.Attach(ctx, client, ref.WithDigest(ref.Digest), a, time.Now())
	if err != nil {
		return "", err
	}
	return d.Digest.String(), nil
}

// buildProvenance describes a publish of the skill in dir: the git
// remote and commit when dir is in a checkout, GitHub Actions' workflow
// run as the builder when there is one.
func buildProvenance(ctx context.Context, dir string, p *registry.Package, started time.Time) *verify.Provenance {
	prov := &verify.Provenance{Builder: "skillpm/" + version, Name: p.Name, Version: p.Version, Manifest: p.Manifest.Digest, Content: p.Layer.Digest, BuildTime: started.UTC()}
	if srv, repo, run := os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_RUN_ID"); srv != "" && repo != "" {
		prov.SourceRepository = srv + "/" + repo
		prov.Revision = os.Getenv("GITHUB_SHA")
		if run != "" {
			prov.Builder = srv + "/" + repo + "/actions/runs/" + run
		}
		return prov
	}
	git := func(args ...string) string {
		abs, _ := filepath.Abs(dir)
		out, err := exec.CommandContext(ctx, "git", append([]string{"-C", abs}, args...)...).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	if rev := git("rev-parse", "HEAD"); rev != "" {
		prov.Revision = rev
		prov.SourceRepository = cleanRemote(git("remote", "get-url", "origin"))
	}
	return prov
}

// cleanRemote drops credentials from a remote URL and writes scp-style
// remotes (git@github.com:acme/skills.git) as https URLs.
func cleanRemote(s string) string {
	if s == "" {
		return ""
	}
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		u.User = nil
		return strings.TrimSuffix(u.String(), ".git")
	}
	if at := strings.Index(s, "@"); at >= 0 {
		if host, path, ok := strings.Cut(s[at+1:], ":"); ok {
			return "https://" + host + "/" + strings.TrimSuffix(path, ".git")
		}
	}
	return s
}
