package manager

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/project"
)

// BenchmarkCheckLock1000 checks a lock of 1000 skills (100 wanted, each
// depending on 9 others) against skills.yaml and the pinned releases:
// the cost every install and verify now pays before acting.
func BenchmarkCheckLock1000(b *testing.B) {
	dir := b.TempDir()
	var y strings.Builder
	y.WriteString("registry: ghcr.io/acme/skills\nskills:\n")
	lock := &lockfile.File{}
	rels := map[string]*Release{}
	for i := range 1000 {
		name := fmt.Sprintf("s%04d", i)
		e := lockfile.Skill{Name: name, Version: "1.0.0", Repository: "ghcr.io/acme/skills/" + name, Manifest: fakeDigest(name), Content: fakeDigest(name + "c")}
		rel := &Release{Name: name, Version: "1.0.0", Manifest: e.Manifest, Content: e.Content}
		if i%10 == 0 {
			fmt.Fprintf(&y, "  %s: ^1.0.0\n", name)
			e.Requested = true
			for j := 1; j < 10; j++ {
				d := fmt.Sprintf("s%04d", i+j)
				e.Dependencies = append(e.Dependencies, d)
				rel.DependsOn = append(rel.DependsOn, d+"@^1.0.0")
			}
		}
		lock.Skills = append(lock.Skills, e)
		rels[name] = rel
	}
	os.WriteFile(filepath.Join(dir, project.FileName), []byte(y.String()), 0o644)
	p, err := project.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	lock.Inputs = p.InputsDigest()
	lock.Normalize()
	b.ResetTimer()
	for b.Loop() {
		if err := checkFiles(p, lock, ""); err != nil {
			b.Fatal(err)
		}
		if err := CheckPinned(p, lock, rels); err != nil {
			b.Fatal(err)
		}
	}
}
