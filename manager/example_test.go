package manager_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
)

// CheckLock refuses a lock whose entry names another repository than the
// one skills.yaml resolves the skill to.
func ExampleCheckLock() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "skills.yaml"), []byte("registry: ghcr.io/acme/skills\nskills:\n  pdf: ^1.0.0\n"), 0o644)
	p, _ := project.Load(dir)
	lock := &lockfile.File{Inputs: p.InputsDigest(), Skills: []lockfile.Skill{{
		Name: "pdf", Version: "1.2.0", Requested: true,
		Repository: "ghcr.io/evil/skills/pdf", // edited
		Manifest:   "sha256:8c56c700b6f53898bdd89aca16528b058ab84f2790b53fe5638c6d0642498900",
		Content:    "sha256:aed21d9c27319df326cb8371652e29bd9728f551443ecf8fb9637f9af359f851",
	}}}
	err := manager.CheckLock(context.Background(), p, lock, manager.CheckOptions{})
	var le *manager.LockError
	if errors.As(err, &le) {
		for _, pr := range le.Problems {
			fmt.Printf("%s: %s\n", pr.Skill, pr.Reason)
		}
	}
	// Output:
	// pdf: repository is ghcr.io/evil/skills/pdf, but skills.yaml resolves pdf to ghcr.io/acme/skills/pdf
}
