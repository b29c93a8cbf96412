package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skillpm/skillpm/index"
)

// ExampleInstalled reads the metadata of a skill folder twice: the first
// call parses SKILL.md and fills the index, the second is served from it.
// A folder is remembered only once its files have settled (a file
// changed again within its file system's timestamp granularity could keep
// its stamp), hence the pause after writing it.
func ExampleInstalled() {
	tmp, _ := os.MkdirTemp("", "index-example-")
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "skills", "hello")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: hello\ndescription: Say hello.\n---\nHi.\n"), 0o644)
	db := filepath.Join(tmp, index.FileName)
	time.Sleep(100 * time.Millisecond)

	for range 2 {
		res, st := index.Installed(context.Background(), db, []string{dir}, index.Options{})
		fmt.Printf("%s: %q cached=%v (hits %d, misses %d)\n", res[0].Skill.Name, res[0].Skill.Description, res[0].Cached, st.Hits, st.Misses)
	}
	// Output:
	// hello: "Say hello." cached=false (hits 0, misses 1)
	// hello: "Say hello." cached=true (hits 1, misses 0)
}
