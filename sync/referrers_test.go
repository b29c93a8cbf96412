package sync

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/verify"
)

// flood attaches n distinct referrers of artifactType to subject in
// oci:root/name, each with its own small layer.
func flood(t *testing.T, c *registry.Client, root, name string, subject ocispec.Descriptor, artifactType string, n int) {
	t.Helper()
	ref, _ := registry.ParseReference("oci:" + filepath.Join(root, name))
	tgt, err := c.Target(bg, ref, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		layer, err := oras.PushBytes(bg, tgt, artifactType, fmt.Appendf(nil, `{"junk":%q,"n":%d}`, artifactType, i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := oras.PackManifest(bg, tgt, oras.PackManifestVersion1_1, artifactType, oras.PackManifestOptions{Subject: &subject, Layers: []ocispec.Descriptor{layer}}); err != nil {
			t.Fatal(err)
		}
	}
}

// mirrorReferrers lists the referrers of d in oci:root/name.
func mirrorReferrers(t *testing.T, c *registry.Client, root, name string, d ocispec.Descriptor) []ocispec.Descriptor {
	t.Helper()
	ref, _ := registry.ParseReference("oci:" + filepath.Join(root, name))
	tgt, err := c.Target(bg, ref, false)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := referrers(bg, tgt, d)
	if err != nil {
		t.Fatal(err)
	}
	return refs
}

func countType(refs []ocispec.Descriptor, artifactType string) int {
	n := 0
	for _, r := range refs {
		if r.ArtifactType == artifactType {
			n++
		}
	}
	return n
}

// An upstream listing more referrers than sync copies gets at most
// maxReferrersCopied of them on the mirror, sigstore bundles first, and
// the report says how many were left out; the mirror's own vetted
// attestation is still among the referrers a client reads. A later run
// does not add more, even when upstream lists new ones. A version with
// fewer referrers is copied whole.
func TestRunCapsReferrers(t *testing.T) {
	const junk = "application/vnd.example.junk"
	const others, bundles = 100, 30 // more than verify reads (128) in all
	c := registry.NewClient(registry.Options{})
	up, mirror, keys := t.TempDir(), filepath.Join(t.TempDir(), "m"), t.TempDir()
	fl := publish(t, c, up, "flood", "1.0.0", "license: MIT\n", false)
	flood(t, c, up, "flood", fl, junk, others)
	flood(t, c, up, "flood", fl, verify.BundleMediaType, bundles)
	pdf := publish(t, c, up, "pdf", "1.0.0", "license: MIT\n", false)
	flood(t, c, up, "pdf", pdf, junk, 2)
	flood(t, c, up, "pdf", pdf, verify.BundleMediaType, 1)
	org := writeKey(t, keys, "vetting")
	cfg := &Config{From: "oci:" + up, To: "oci:" + mirror}

	rep, err := Run(bg, Options{Config: cfg, Client: c, Attester: org, Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	items := byName(rep)
	it := items["flood@1.0.0"]
	if it.Action != ActionCopied || !it.Attested || it.Referrers != maxReferrersCopied || it.ReferrersLeftOut != others+bundles-maxReferrersCopied {
		t.Errorf("flood: %s attested=%v, %d referrers, %d left out; want copied, attested, %d and %d",
			it.Action, it.Attested, it.Referrers, it.ReferrersLeftOut, maxReferrersCopied, others+bundles-maxReferrersCopied)
	}
	got := mirrorReferrers(t, c, mirror, "flood", fl)
	if len(got) != maxReferrersCopied+1 {
		t.Errorf("mirror lists %d referrers of flood; want %d and the vetted attestation", len(got), maxReferrersCopied)
	}
	if n := countType(got, verify.BundleMediaType); n != bundles+1 {
		t.Errorf("mirror holds %d bundles of flood; want all %d upstream's and the vetted attestation", n, bundles)
	}
	if err := clientCheck(t, c, vettedVerifier(t, keys), mirror, "flood", fl); err != nil {
		t.Errorf("client on the flooded version: %v; want vetted", err)
	}
	var b strings.Builder
	rep.Write(&b)
	if want := fmt.Sprintf("(+%d referrers; %d referrers left out, over the limit of %d) [vetted]", maxReferrersCopied, others+bundles-maxReferrersCopied, maxReferrersCopied); !strings.Contains(b.String(), want) {
		t.Errorf("report:\n%s\nwant a line with %q", b.String(), want)
	}
	if data, _ := json.Marshal(it); !strings.Contains(string(data), fmt.Sprintf(`"referrers_left_out":%d`, others+bundles-maxReferrersCopied)) {
		t.Errorf("JSON item %s: no referrers_left_out", data)
	}

	// Under the bound: everything, as before.
	if it := items["pdf@1.0.0"]; it.Action != ActionCopied || it.Referrers != 3 || it.ReferrersLeftOut != 0 {
		t.Errorf("pdf: %s, %d referrers, %d left out; want copied, 3, 0", it.Action, it.Referrers, it.ReferrersLeftOut)
	}
	if got := mirrorReferrers(t, c, mirror, "pdf", pdf); len(got) != 3+1 {
		t.Errorf("mirror lists %d referrers of pdf; want its 3 and the vetted attestation", len(got))
	}

	// Upstream lists more: the mirror already holds as many as sync
	// copies, and gets no more.
	flood(t, c, up, "flood", fl, junk+".more", 5)
	rep, err = Run(bg, Options{Config: cfg, Client: c, Attester: org, Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	if it := byName(rep)["flood@1.0.0"]; it.Action != ActionSkipped || it.ReferrersLeftOut != others+bundles+5-maxReferrersCopied || rep.Uploaded != (Uploaded{}) {
		t.Errorf("second run: flood %s %q, %d left out, uploaded %+v; want skipped, %d, nothing",
			it.Action, it.Reason, it.ReferrersLeftOut, rep.Uploaded, others+bundles+5-maxReferrersCopied)
	}
	if got := mirrorReferrers(t, c, mirror, "flood", fl); len(got) != maxReferrersCopied+1 {
		t.Errorf("after the second run the mirror lists %d referrers of flood; want still %d", len(got), maxReferrersCopied+1)
	}
}

// Referrers of referrers are bounded too, all levels together.
func TestRunCapsReferrersOfReferrers(t *testing.T) {
	const junk = "application/vnd.example.junk"
	c := registry.NewClient(registry.Options{})
	up, mirror := t.TempDir(), filepath.Join(t.TempDir(), "m")
	d := publish(t, c, up, "pdf", "1.0.0", "license: MIT\n", false)
	sig := sign(t, c, up, "pdf", d)
	flood(t, c, up, "pdf", sig, junk, maxReferrersCopied+6)

	rep, err := Run(bg, Options{Config: &Config{From: "oci:" + up, To: "oci:" + mirror}, Client: c})
	if err != nil {
		t.Fatal(err)
	}
	if it := rep.Items[0]; it.Action != ActionCopied || it.Referrers != 1 || it.ReferrersLeftOut != 6 {
		t.Errorf("pdf: %s, %d referrers, %d left out; want copied, 1, 6", it.Action, it.Referrers, it.ReferrersLeftOut)
	}
	if got := mirrorReferrers(t, c, mirror, "pdf", d); len(got) != 1 || got[0].Digest != sig.Digest {
		t.Fatalf("mirror referrers of pdf: %v; want the signature", got)
	}
	if got := mirrorReferrers(t, c, mirror, "pdf", sig); len(got) != maxReferrersCopied {
		t.Errorf("mirror lists %d referrers of the signature; want %d", len(got), maxReferrersCopied)
	}
}

func TestKeepReferrers(t *testing.T) {
	desc := func(name, artifactType string) ocispec.Descriptor {
		return ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString(name), ArtifactType: artifactType}
	}
	a, b := desc("a", "application/vnd.example"), desc("b", "")
	s1, s2 := desc("s1", verify.BundleMediaType), desc("s2", verify.BundleMediaType)
	for _, tc := range []struct {
		refs  []ocispec.Descriptor
		limit int
		want  []ocispec.Descriptor
		left  int
	}{
		{nil, 2, nil, 0},
		{[]ocispec.Descriptor{a, b}, 2, []ocispec.Descriptor{a, b}, 0},
		{[]ocispec.Descriptor{a, s1, b, s2}, 3, []ocispec.Descriptor{s1, s2, a}, 1},
		{[]ocispec.Descriptor{a, a, s1, a, s1}, 2, []ocispec.Descriptor{s1, a}, 0},
		{[]ocispec.Descriptor{b, a}, 1, []ocispec.Descriptor{b}, 1},
		{[]ocispec.Descriptor{a, b}, 0, nil, 2},
		{[]ocispec.Descriptor{a, b}, -1, nil, 2},
	} {
		got, left := keepReferrers(tc.refs, tc.limit)
		if !slices.Equal(digests(got), digests(tc.want)) || left != tc.left {
			t.Errorf("keepReferrers(%v, %d) = %v, %d; want %v, %d", digests(tc.refs), tc.limit, digests(got), left, digests(tc.want), tc.left)
		}
	}
}

func digests(ds []ocispec.Descriptor) []digest.Digest {
	var out []digest.Digest
	for _, d := range ds {
		out = append(out, d.Digest)
	}
	return out
}

// lyingTarget lists, as the referrers of a node, what lies maps it to.
type lyingTarget struct {
	registry.Target
	lies map[digest.Digest][]ocispec.Descriptor
}

func (l lyingTarget) Predecessors(ctx context.Context, d ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	if ds, ok := l.lies[d.Digest]; ok {
		return ds, nil
	}
	return l.Target.Predecessors(ctx, d)
}

// A registry's listing of a node's referrers is its word only: a
// manifest listed under a signature (or under the version) whose subject
// is another node is not copied, for the mirror would list it among that
// node's referrers, past the bound of the version's own (and, run after
// run, past the rule that a full list gets no more), where it could push
// the mirror's vetted attestation out of what clients read.
func TestCopyGraphSkipsReferrersOfAnotherSubject(t *testing.T) {
	const junk = "application/vnd.example.junk"
	c := registry.NewClient(registry.Options{})
	up, mirror := t.TempDir(), t.TempDir()
	d := publish(t, c, up, "pdf", "1.0.0", "license: MIT\n", false)
	other := publish(t, c, up, "pdf", "2.0.0", "license: MIT\n", false)
	sig := sign(t, c, up, "pdf", d)
	flood(t, c, up, "pdf", d, junk, 5)
	flood(t, c, up, "pdf", other, junk+".other", 3)
	upRef, _ := registry.ParseReference("oci:" + filepath.Join(up, "pdf"))
	upT, err := c.Target(bg, upRef, false)
	if err != nil {
		t.Fatal(err)
	}
	all, err := referrers(bg, upT, d)
	if err != nil {
		t.Fatal(err)
	}
	ofOther, err := referrers(bg, upT, other)
	if err != nil {
		t.Fatal(err)
	}
	var flooded []ocispec.Descriptor
	for _, r := range all {
		if r.Digest != sig.Digest {
			flooded = append(flooded, r)
		}
	}
	// Upstream says the version has the signature and the other
	// version's three referrers, and that the signature has the five
	// junk manifests (whose subject is the version).
	src := lyingTarget{upT, map[digest.Digest][]ocispec.Descriptor{
		d.Digest:   append([]ocispec.Descriptor{sig}, ofOther...),
		sig.Digest: flooded,
	}}
	dstRef, _ := registry.ParseReference("oci:" + filepath.Join(mirror, "pdf"))
	dst, err := c.Target(bg, dstRef, true)
	if err != nil {
		t.Fatal(err)
	}
	refs, _ := keepReferrers(append([]ocispec.Descriptor{sig}, ofOther...), maxReferrersCopied)
	copied, left, err := copyGraph(bg, src, dst, d, refs, oras.CopyGraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(digests(copied), []digest.Digest{sig.Digest}) || left != len(flooded)+len(ofOther) {
		t.Errorf("copyGraph copied %v as the version's referrers, left out %d; want the signature, %d", digests(copied), left, len(flooded)+len(ofOther))
	}
	if got := mirrorReferrers(t, c, mirror, "pdf", d); !slices.Equal(digests(got), []digest.Digest{sig.Digest}) {
		t.Errorf("mirror referrers of the version: %v; want the signature only", digests(got))
	}
	if got := mirrorReferrers(t, c, mirror, "pdf", other); len(got) != 0 {
		t.Errorf("mirror referrers of the other version: %v; want none", digests(got))
	}
}
