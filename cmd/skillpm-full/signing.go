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

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/internal/httpbound"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/verify"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
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
func newSigner(e *command.Env, c *cli.Context) (*verify.Signer, error) {
	return signerFor(e, c, c.String("key"), c.Bool("keyless"), "--key", "--keyless")
}

// signerFor builds a signer for a private key file or keyless signing
// (with the keyless URL flags of c); keyFlag and keylessFlag name the
// options in errors.
func signerFor(e *command.Env, c *cli.Context, key string, keyless bool, keyFlag, keylessFlag string) (*verify.Signer, error) {
	switch {
	case key != "" && keyless:
		return nil, command.UsageErrorf(c, "give %s or %s, not both", keyFlag, keylessFlag)
	case key != "":
		data, err := os.ReadFile(key)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &command.UsageError{Msg: fmt.Sprintf("%s %s: no such file", keyFlag, key), Hint: "make a key pair with 'skillpm key generate --output-prefix NAME'"}
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
		return verify.NewSigner(verify.SignerOptions{Keypair: kp, Sigstore: sigstoreBackend(e)})
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
			Sigstore: sigstoreBackend(e),
		})
	}
	return nil, command.UsageErrorf(c, "say how to sign: %s FILE or %s", keyFlag, keylessFlag)
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
	prov := &verify.Provenance{Builder: "skillpm/" + command.Version, Name: p.Name, Version: p.Version, Manifest: p.Manifest.Digest, Content: p.Layer.Digest, BuildTime: started.UTC()}
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

// passphrase reads the key passphrase from SKILLPM_KEY_PASSWORD or the
// terminal (twice when confirm). It is never printed or logged.
func passphrase(e *command.Env, confirm bool) ([]byte, error) {
	if p, ok := os.LookupEnv(passwordEnv); ok {
		return []byte(p), nil
	}
	f, ok := e.Stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, &command.UsageError{Msg: "no passphrase for the private key", Hint: "set " + passwordEnv + " or run on a terminal"}
	}
	fmt.Fprint(e.Stderr, "Enter passphrase for the private key: ")
	p, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(e.Stderr)
	if err != nil || !confirm {
		return p, err
	}
	fmt.Fprint(e.Stderr, "Enter it again: ")
	again, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(e.Stderr)
	if err != nil {
		return nil, err
	}
	if string(again) != string(p) {
		return nil, errors.New("the passphrases differ")
	}
	return p, nil
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

// passwordEnv holds the private key's passphrase for non-interactive use.
const passwordEnv = "SKILLPM_KEY_PASSWORD"
