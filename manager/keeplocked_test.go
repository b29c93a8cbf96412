package manager

import (
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/source"
)

func TestKeepLocked(t *testing.T) {
	locked := lockfile.Skill{Name: "pdf", Version: "1.2.0", Source: &lockfile.Source{Digest: "sha256:old"}}
	newer := source.Candidate{Version: semver.MustParse("1.3.0"), Pin: lockfile.Source{Digest: "sha256:new"}}
	// The origin now serves 1.3.0 only: 1.2.0 stays beside it.
	got := keepLocked([]source.Candidate{newer}, locked)
	if len(got) != 2 || got[1].Version.String() != "1.2.0" || got[1].Pin.Digest != "sha256:old" {
		t.Errorf("newer version: %+v; want 1.3.0 and the locked 1.2.0", got)
	}
	// The same version with another digest (a changed archive): the
	// locked pin, so that exporting it tells the change (exit 10).
	same := source.Candidate{Version: semver.MustParse("1.2.0"), Pin: lockfile.Source{Digest: "sha256:changed"}}
	got = keepLocked([]source.Candidate{same}, locked)
	if len(got) != 1 || got[0].Pin.Digest != "sha256:old" {
		t.Errorf("same version: %+v; want the locked pin", got)
	}
	// An unversioned, tracked entry stays at its locked digest.
	tracked := source.Candidate{Pin: lockfile.Source{Digest: "sha256:now"}, Tracked: true}
	got = keepLocked([]source.Candidate{tracked}, locked)
	if len(got) != 1 || got[0].Pin.Digest != "sha256:old" || !got[0].Tracked || got[0].Version.String() != "1.2.0" {
		t.Errorf("tracked: %+v; want the locked pin, still tracked", got)
	}
}
