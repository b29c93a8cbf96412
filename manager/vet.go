package manager

import (
	"context"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
)

// Vetter is implemented by a Trust whose policy also judges a skill's
// content (a trust policy's audit: rule). Install passes it to
// install.Options.Vet: each skill is vetted once, staged and
// digest-checked, before any target changes.
type Vetter interface {
	// Vet judges the files of s in dir; an error refuses the install.
	Vet(ctx context.Context, s lockfile.Skill, dir string) error
}

// vet returns the content check of m.Trust, nil when it has none.
func (m *Manager) vet() install.VetFunc {
	if v, ok := m.Trust.(Vetter); ok {
		return v.Vet
	}
	return nil
}
