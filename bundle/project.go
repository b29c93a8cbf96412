package bundle

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
)

// ExportProject bundles the lock of the project m works on into out, as
// 'skillpm bundle' does. What a bundle carries is installed as is on the
// other side, so only a lock that agrees with skills.yaml is exported: a
// missing or stale lock fails with manager.ErrStaleLock, and every entry
// is checked against the manifest it pins (manager.CheckLock) first.
// Skills are read through m's registry client; a skill from git, a local
// folder or a well-known origin is bundled from its packed copy in m's
// source store.
func ExportProject(ctx context.Context, m *manager.Manager, out string) (*Exported, error) {
	lock, err := m.ReadLock()
	if err != nil {
		return nil, err
	}
	if lock == nil || !m.Fresh(lock) {
		return nil, fmt.Errorf("%w: bundle exports skills.lock as is (run 'skillpm install' first)", manager.ErrStaleLock)
	}
	if err := m.CheckLock(ctx, lock); err != nil {
		return nil, fmt.Errorf("%s: %w", m.LockPath(), err)
	}
	rs, ok := m.Registry.(*manager.RegistrySource)
	if !ok {
		return nil, errors.New("bundle needs a registry client")
	}
	layouts := map[string]string{}
	for _, s := range lock.Skills {
		if lockfile.SourceKind(s.Repository) != "" {
			l, err := m.SourceLayout(ctx, s)
			if err != nil {
				return nil, err
			}
			layouts[s.Repository] = l
		}
	}
	abs := func(repo string) string {
		if l, ok := layouts[repo]; ok {
			return l
		}
		return m.Project.Abs(repo)
	}
	return Export(ctx, rs.Client, lock, out, ExportOptions{Abs: abs})
}
