package verify

import (
	"context"

	"github.com/skillpm/skillpm/lockfile"
)

// Vet applies the policy's audit: rules to a staged skill
// (manager.Vetter): findings at or above the strictest fail_on of the
// policy layers refuse the install with an *AuditError (exit 9). With no
// Verifier there is no policy, and nothing is refused.
func (t *Trust) Vet(ctx context.Context, s lockfile.Skill, dir string) error {
	if t.Verifier == nil {
		return nil
	}
	_, err := t.Verifier.Audit(ctx, s.Repository, s.Name, dir)
	return err
}
