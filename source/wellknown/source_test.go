package wellknown

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/source/wellknown/discovery"
)

func TestKind(t *testing.T) {
	ctx := context.Background()
	s := newSite(t)
	tgz := tarGz(t, tarEntry{name: "SKILL.md", body: skillMD("pdf")}, tarEntry{name: "scripts/run.sh", body: "echo hi\n"})
	pdf := s.artifact("pdf", TypeArchive, "/.well-known/agent-skills/pdf.tar.gz", tgz)
	pdf["version"] = "1.2.0"
	notes := s.artifact("notes", TypeSkillMD, "/.well-known/agent-skills/notes/SKILL.md", []byte(skillMD("notes")))
	notes["version"] = "latest" // not semver: tracked, like a folder
	s.index(t, discovery.IndexPath, pdf, notes)
	k := &Kind{Client: newClient(t)}
	entry := func(name string) source.Entry {
		return source.Entry{Name: name, Kind: "wellknown", Location: s.srv.URL, Repository: "wellknown+" + s.srv.URL}
	}

	names, err := k.Skills(ctx, entry(""))
	if err != nil || strings.Join(names, ",") != "notes,pdf" {
		t.Fatalf("Skills = %v, %v; want notes,pdf", names, err)
	}
	cands, err := k.Versions(ctx, entry("pdf"))
	if err != nil || len(cands) != 1 || cands[0].Version == nil || cands[0].Version.String() != "1.2.0" || cands[0].Tracked || cands[0].Pin.Digest != sum(tgz) {
		t.Fatalf("Versions(pdf) = %+v, %v; want 1.2.0 pinned to %s", cands, err, sum(tgz))
	}
	nc, err := k.Versions(ctx, entry("notes"))
	if err != nil || len(nc) != 1 || nc[0].Version != nil || !nc[0].Tracked {
		t.Fatalf("Versions(notes) = %+v, %v; want one tracked, unversioned candidate", nc, err)
	}
	if _, err := k.Versions(ctx, entry("nope")); !errors.Is(err, source.ErrNotFound) || !errors.Is(err, ErrUnknownSkill) {
		t.Errorf("Versions(nope) = %v; want ErrNotFound and ErrUnknownSkill", err)
	}
	if _, err := (&Kind{Client: newClient(t)}).Versions(ctx, source.Entry{Name: "pdf", Location: s.srv.URL + "/nothing"}); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("Versions on an origin without index = %v; want ErrNotFound", err)
	}

	out := t.TempDir()
	if err := k.Export(ctx, entry("pdf"), cands[0].Pin, filepath.Join(out, "pdf")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "pdf", "scripts", "run.sh")); err != nil || string(b) != "echo hi\n" {
		t.Errorf("exported run.sh = %q, %v", b, err)
	}
	if err := k.Export(ctx, entry("notes"), nc[0].Pin, filepath.Join(out, "notes")); err != nil {
		t.Fatal(err)
	}

	// A changed archive under the pin: a fresh Kind (and cache) refuses it.
	tgz2 := tarGz(t, tarEntry{name: "SKILL.md", body: skillMD("pdf") + "Changed.\n"})
	pdf2 := s.artifact("pdf", TypeArchive, "/.well-known/agent-skills/pdf.tar.gz", tgz2)
	s.index(t, discovery.IndexPath, pdf2, notes)
	fresh := &Kind{Client: newClient(t)}
	err = fresh.Export(ctx, entry("pdf"), cands[0].Pin, filepath.Join(out, "changed"))
	if !errors.Is(err, source.ErrPinMismatch) || !strings.Contains(err.Error(), "skillpm update pdf") || !strings.Contains(err.Error(), s.srv.URL) {
		t.Errorf("export of a changed archive = %v; want ErrPinMismatch naming the origin and the fix", err)
	}
	if _, serr := os.Stat(filepath.Join(out, "changed")); serr == nil {
		t.Error("a refused export left a folder")
	}
	// A skill the index no longer lists.
	s.index(t, discovery.IndexPath, notes)
	fresh = &Kind{Client: newClient(t)}
	if err := fresh.Export(ctx, entry("pdf"), cands[0].Pin, filepath.Join(out, "gone")); !errors.Is(err, source.ErrPinMismatch) {
		t.Errorf("export of a removed skill = %v; want ErrPinMismatch", err)
	}
	// A bad pin is an invalid lock.
	if err := fresh.Export(ctx, entry("pdf"), lockfile.Source{Digest: "sha256:nothex"}, filepath.Join(out, "bad")); !errors.Is(err, lockfile.ErrInvalid) {
		t.Errorf("export of a bad pin = %v; want lockfile.ErrInvalid", err)
	}

	// Warm and offline: the first Kind's cache holds both artifacts.
	s.srv.Close()
	warm := &Kind{Client: k.Client}
	for _, tc := range []struct {
		name string
		pin  lockfile.Source
	}{{"pdf", cands[0].Pin}, {"notes", nc[0].Pin}} {
		if err := warm.Export(ctx, entry(tc.name), tc.pin, filepath.Join(out, "warm-"+tc.name)); err != nil {
			t.Errorf("warm export of %s with the origin down: %v", tc.name, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "warm-notes", "SKILL.md")); err != nil || string(b) != skillMD("notes") {
		t.Errorf("warm notes SKILL.md = %q, %v", b, err)
	}
}

// The pin records where the index said the artifact is, relative to the
// origin; an export checks the index still lists it there with that
// digest. A lock without a URL (written before it was recorded) is read
// as before.
func TestKindPinURL(t *testing.T) {
	ctx := context.Background()
	s := newSite(t)
	tgz := tarGz(t, tarEntry{name: "SKILL.md", body: skillMD("pdf")})
	s.index(t, discovery.IndexPath, s.artifact("pdf", TypeArchive, "/.well-known/agent-skills/pdf.tar.gz", tgz))
	e := source.Entry{Name: "pdf", Kind: "wellknown", Location: s.srv.URL, Repository: "wellknown+" + s.srv.URL}
	cands, err := (&Kind{Client: newClient(t)}).Versions(ctx, e)
	if err != nil || cands[0].Pin.URL != ".well-known/agent-skills/pdf.tar.gz" {
		t.Fatalf("Versions(pdf) pin = %+v, %v; want url .well-known/agent-skills/pdf.tar.gz", cands, err)
	}
	out := t.TempDir()
	old := lockfile.Source{Digest: cands[0].Pin.Digest}
	if err := (&Kind{Client: newClient(t)}).Export(ctx, e, old, filepath.Join(out, "old")); err != nil {
		t.Errorf("export of a pin without url = %v; want nil", err)
	}
	// The same bytes, now listed at another address.
	s.index(t, discovery.IndexPath, s.artifact("pdf", TypeArchive, "/.well-known/agent-skills/moved.tar.gz", tgz))
	err = (&Kind{Client: newClient(t)}).Export(ctx, e, cands[0].Pin, filepath.Join(out, "moved"))
	if !errors.Is(err, source.ErrPinMismatch) || !strings.Contains(err.Error(), "moved.tar.gz") || !strings.Contains(err.Error(), "came from "+s.srv.URL+"/.well-known/agent-skills/pdf.tar.gz") {
		t.Errorf("export of an artifact listed elsewhere = %v; want ErrPinMismatch naming both URLs", err)
	}
	if got := AbsURL(s.srv.URL, "https://cdn.example.com/pdf.tgz"); got != "https://cdn.example.com/pdf.tgz" {
		t.Errorf("AbsURL(absolute) = %q", got)
	}
	if got := RelURL("https://example.com/docs", "https://cdn.example.com/pdf.tgz"); got != "https://cdn.example.com/pdf.tgz" {
		t.Errorf("RelURL(elsewhere) = %q; want it absolute", got)
	}
}
