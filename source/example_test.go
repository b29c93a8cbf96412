package source_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/source/local"
)

// A kind of source lists an entry's candidates; the Store exports one
// and packs it into an OCI layout under the cache, whose digests the lock
// records like a registry skill's.
func ExampleStore_Pack() {
	ctx := context.Background()
	tmp, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "dev")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: dev\ndescription: An example skill.\nversion: 1.0.0\n---\n# dev\n"), 0o644)

	var kind source.Source = &local.Kind{}
	e := source.Entry{Name: "dev", Kind: "local", Location: dir, Repository: "local:dev"}
	cands, err := kind.Versions(ctx, e)
	if err != nil {
		fmt.Println(err)
		return
	}
	store := &source.Store{Dir: filepath.Join(tmp, "cache"), Client: registry.NewClient(registry.Options{})}
	p, err := store.Pack(ctx, kind, e, cands[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name, p.Version, p.Pin.Digest == cands[0].Pin.Digest)
	// Output: dev 1.0.0 true
}
