package importer_test

import (
	"context"
	"fmt"

	"github.com/skillpm/skillpm/importer"
)

// Scan proposes a skills.yaml entry for every skill the skills CLI and
// ToolHive recorded in a project, and for the folders agents read.
func ExampleScan() {
	res, err := importer.Scan(context.Background(), importer.Options{
		Root: "testdata/project",
		Dirs: []string{".claude/skills", ".agents/skills"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Proposals {
		fmt.Println(p.Name, p.Kind, p.Pinned)
	}
	// Output:
	// code-review git true
	// docx git false
	// frontend-design local false
	// meeting-notes none false
	// pdf git true
	// toolhive-cli-user none false
	// toolhive-demo oci true
	// vercel-deploy none false
}
