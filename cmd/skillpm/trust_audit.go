package main

import (
	"context"

	"github.com/skillpm/skillpm/lockfile"
)

// Vet applies the trust policy's audit: rules to a staged skill
// (manager.Vetter): findings at or above the strictest fail_on of the
// layers refuse the install with a *verify.AuditError (exit 9).
func (t policyTrust) Vet(ctx context.Context, s lockfile.Skill, dir string) error {
	_, err := t.v.Audit(ctx, s.Repository, s.Name, dir)
	return err
}
