package manager

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkColdInstallGit50 installs 50 skills of one git monorepo
// (file://) into an empty cache and two empty targets: list the tags,
// fetch the commit, export, pack and install each skill. bench/sources
// measures the same end to end against git daemon and a registry.
func BenchmarkColdInstallGit50(b *testing.B) {
	work := b.TempDir()
	t := &testing.T{}
	gitT(t, work, "init", "-q", "-b", "main")
	var y strings.Builder
	y.WriteString("skills:\n")
	for i := range 50 {
		n := fmt.Sprintf("skill-%02d", i)
		writeT(t, filepath.Join(work, "skills", n, "SKILL.md"), "---\nname: "+n+"\ndescription: A benchmark skill.\n---\n# "+n+"\n"+strings.Repeat("Instructions. ", 100))
		writeT(t, filepath.Join(work, "skills", n, "scripts/run.sh"), "#!/bin/sh\necho hi\n")
		fmt.Fprintf(&y, "  %s:\n    git: file://%s\n    path: skills/%s\n    version: ^1.0.0\n", n, work, n)
	}
	gitT(t, work, "add", "-A")
	gitT(t, work, "commit", "-q", "-m", "skills")
	for i := range 50 {
		gitT(t, work, "tag", fmt.Sprintf("skill-%02d/v1.0.0", i))
	}
	if t.Failed() {
		b.Fatal("fixture failed")
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		m := sourcedProject(&testing.T{}, y.String())
		m.Targets = []string{filepath.Join(m.Project.Dir(), "a"), filepath.Join(m.Project.Dir(), "b")}
		b.StartTimer()
		if _, err := m.Install(context.Background(), InstallOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(m.Project.Dir())
		b.StartTimer()
	}
}
