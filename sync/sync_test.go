package sync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"

	"github.com/skillpm/skillpm/registry"
)

var bg = context.Background()

// publish packs a skill with the given frontmatter lines and publishes it
// to oci:root/name.
func publish(t *testing.T, c *registry.Client, root, name, version, extra string, force bool) ocispec.Descriptor {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	os.MkdirAll(dir, 0o755)
	md := "---\nname: " + name + "\ndescription: Test skill " + name + ". Use it in tests.\nversion: " + version + "\n" + extra + "---\n\n# " + name + "\n\nDo the thing.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg, err := registry.Pack(bg, dir, registry.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pkg.Close()
	repo, _ := registry.ParseReference("oci:" + filepath.Join(root, name))
	if _, err := c.Publish(bg, pkg, repo, registry.PublishOptions{Force: force}); err != nil {
		t.Fatal(err)
	}
	return pkg.Manifest
}

// sign attaches a fake sigstore bundle referrer to subject.
func sign(t *testing.T, c *registry.Client, root, name string, subject ocispec.Descriptor) ocispec.Descriptor {
	t.Helper()
	ref, _ := registry.ParseReference("oci:" + filepath.Join(root, name))
	tgt, err := c.Target(bg, ref, false)
	if err != nil {
		t.Fatal(err)
	}
	layer, err := oras.PushBytes(bg, tgt, "application/vnd.dev.sigstore.bundle.v0.3+json", []byte(`{"fake":"bundle"}`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := oras.PackManifest(bg, tgt, oras.PackManifestVersion1_1, ArtifactTypeSigstoreBundle, oras.PackManifestOptions{Subject: &subject, Layers: []ocispec.Descriptor{layer}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func byName(rep *Report) map[string]Item {
	m := map[string]Item{}
	for _, it := range rep.Items {
		m[it.Repository+"@"+it.Version] = it
	}
	return m
}

func TestRunLayouts(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	up, mirror := t.TempDir(), filepath.Join(t.TempDir(), "mirror")
	pdf := publish(t, c, up, "pdf", "1.0.0", "license: MIT\n", false)
	publish(t, c, up, "pdf", "1.1.0", "license: MIT\n", false)
	publish(t, c, up, "net", "1.0.0", "license: MIT\npermissions:\n  network:\n    outbound: [api.example.com]\n", false)
	publish(t, c, up, "gpl", "1.0.0", "license: GPL-3.0-only\n", false)
	sig := sign(t, c, up, "pdf", pdf)

	none := []string{}
	cfg := &Config{From: "oci:" + up, To: "oci:" + mirror, Policy: Policy{Lint: "error", Licenses: []string{"MIT", "Apache-2.0"}, Permissions: PermissionPolicy{Network: &none}}}

	// A dry run plans and writes nothing.
	rep, err := Run(bg, Options{Config: cfg, Client: c, DryRun: true})
	if !errors.Is(err, ErrRejected) {
		t.Fatalf("dry run: got err %v, want ErrRejected", err)
	}
	if got, want := rep.Planned, 2; got != want {
		t.Errorf("dry run planned %d, want %d", got, want)
	}
	if _, err := os.Stat(mirror); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dry run wrote %s", mirror)
	}

	rep, err = Run(bg, Options{Config: cfg, Client: c})
	if !errors.Is(err, ErrRejected) {
		t.Fatalf("got err %v, want ErrRejected", err)
	}
	items := byName(rep)
	for key, want := range map[string]Action{"pdf@1.0.0": ActionCopied, "pdf@1.1.0": ActionCopied, "net@1.0.0": ActionRejected, "gpl@1.0.0": ActionRejected} {
		if got := items[key].Action; got != want {
			t.Errorf("%s: got %s (%s), want %s", key, got, items[key].Reason, want)
		}
	}
	if got, want := items["net@1.0.0"].Check, "permissions"; got != want {
		t.Errorf("net check: got %q, want %q", got, want)
	}
	if got, want := items["gpl@1.0.0"].Check, "license"; got != want {
		t.Errorf("gpl check: got %q, want %q", got, want)
	}
	if got, want := items["pdf@1.0.0"].Referrers, 1; got != want {
		t.Errorf("pdf referrers: got %d, want %d", got, want)
	}

	// The mirror has the same digest, and the signature as a referrer.
	mref, _ := registry.ParseReference("oci:" + filepath.Join(mirror, "pdf"))
	mt, err := c.Target(bg, mref, false)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := mt.Resolve(bg, "1.0.0"); err != nil || d.Digest != pdf.Digest {
		t.Fatalf("mirror pdf:1.0.0 = %v, %v; want %s", d.Digest, err, pdf.Digest)
	}
	refs, err := referrers(bg, mt, pdf)
	if err != nil || len(refs) != 1 || refs[0].Digest != sig.Digest {
		t.Fatalf("mirror referrers = %v, %v; want [%s]", refs, err, sig.Digest)
	}
	if _, err := os.Stat(filepath.Join(mirror, "gpl")); err == nil {
		t.Errorf("rejected gpl has a repository on the mirror")
	}

	// Incremental: nothing new uploads nothing.
	rep, _ = Run(bg, Options{Config: cfg, Client: c})
	if got, want := rep.Skipped, 2; got != want {
		t.Errorf("second run skipped %d, want %d", got, want)
	}
	if got := rep.Uploaded; got != (Uploaded{}) {
		t.Errorf("second run uploaded %+v, want nothing", got)
	}

	// Upstream moves a published tag: rejected, the mirror keeps its copy.
	publish(t, c, up, "pdf", "1.0.0", "license: MIT\nmetadata:\n  evil: \"yes\"\n", true)
	rep, _ = Run(bg, Options{Config: cfg, Client: c})
	if it := byName(rep)["pdf@1.0.0"]; it.Action != ActionRejected || it.Check != "digest" {
		t.Errorf("tampered pdf@1.0.0: got %s %s (%s), want rejected digest", it.Action, it.Check, it.Reason)
	}
	if d, _ := mt.Resolve(bg, "1.0.0"); d.Digest != pdf.Digest {
		t.Errorf("mirror pdf:1.0.0 moved to %s", d.Digest)
	}
}

func TestRunSignaturePolicyWithoutVerifier(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	up, mirror := t.TempDir(), t.TempDir()
	signed := publish(t, c, up, "signed", "1.0.0", "", false)
	sign(t, c, up, "signed", signed)
	publish(t, c, up, "unsigned", "1.0.0", "", false)
	cfg := &Config{From: "oci:" + up, To: "oci:" + mirror, Policy: Policy{Signature: &SignaturePolicy{Keys: []string{"alice.pub"}}}}
	rep, _ := Run(bg, Options{Config: cfg, Client: c})
	items := byName(rep)
	for key, want := range map[string]string{"signed@1.0.0": ErrNoTrustPolicy.Error(), "unsigned@1.0.0": "no signature"} {
		if it := items[key]; it.Action != ActionRejected || !strings.Contains(it.Reason, want) {
			t.Errorf("%s: got %s %q, want rejected %q", key, it.Action, it.Reason, want)
		}
	}
}

type fakeVerifier struct{ id string }

func (f fakeVerifier) VerifySignature(_ context.Context, _ registry.Target, _ registry.Reference, _ ocispec.Descriptor, refs []ocispec.Descriptor, p *SignaturePolicy) (string, error) {
	if f.id == "alice@example.com" {
		return f.id, nil
	}
	return "", errors.New("signed by " + f.id + ", not a trusted identity")
}

func TestRunSignatureVerifier(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	up := t.TempDir()
	d := publish(t, c, up, "s", "1.0.0", "", false)
	sign(t, c, up, "s", d)
	for _, tc := range []struct {
		signer string
		want   Action
	}{{"alice@example.com", ActionCopied}, {"mallory@example.com", ActionRejected}} {
		cfg := &Config{From: "oci:" + up, To: "oci:" + t.TempDir(), Policy: Policy{Signature: &SignaturePolicy{Keys: []string{"alice.pub"}}}}
		rep, _ := Run(bg, Options{Config: cfg, Client: c, Verifier: fakeVerifier{tc.signer}})
		it := byName(rep)["s@1.0.0"]
		if it.Action != tc.want {
			t.Errorf("signer %s: got %s (%s), want %s", tc.signer, it.Action, it.Reason, tc.want)
		}
		if tc.want == ActionCopied && it.Signer != tc.signer {
			t.Errorf("signer %s: report says %q", tc.signer, it.Signer)
		}
	}
}
