package manager

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/skillpm/skillpm/lockfile"
)

// fakeTrust signs every skill but the one named deny.
type fakeTrust struct{ deny string }

var errDenied = errors.New("denied")

func (f fakeTrust) Check(_ context.Context, s lockfile.Skill, repo string) (string, error) {
	if s.Name == f.deny {
		return "", errDenied
	}
	return "key:" + repo, nil
}

func TestInstallTrust(t *testing.T) {
	for _, tc := range []struct {
		name, deny string
		wantErr    error
	}{
		{"every skill trusted", "", nil},
		{"one skill denied", "slug", errDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newManager(t, "registry: oci:./registry\nskills:\n  notes: ^1.0\n")
			m.Trust = fakeTrust{deny: tc.deny}
			lock, _, err := m.Resolve(context.Background(), ResolveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.SyncLock(context.Background(), lock, SyncOptions{})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Install: err = %v; want %v", err, tc.wantErr)
			}
			if tc.wantErr != nil {
				for _, dir := range m.TargetDirs() {
					if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s exists after a denied install; want nothing touched", dir)
					}
				}
				return
			}
			for _, s := range lock.Skills {
				if got, want := s.Signer, "key:"+m.Project.Abs(s.Repository); got != want {
					t.Errorf("%s signer = %q; want %q", s.Name, got, want)
				}
			}
		})
	}
}
