package wellknown_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/source/wellknown"
)

// Publish a folder as a static discovery tree, serve it, and install the
// skill from it: the index is read, the archive's digest checked, then
// it is unpacked.
func Example() {
	tmp, _ := os.MkdirTemp("", "wellknown-example-")
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "src", "pdf")
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: pdf\ndescription: Read PDFs. Use it on PDFs.\n---\n# PDF\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "scripts", "run.sh"), []byte("echo hi\n"), 0o755)

	site := filepath.Join(tmp, "site")
	if _, err := wellknown.Write(context.Background(), site, []string{dir}, wellknown.WriteOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()

	c := &wellknown.Client{CacheDir: filepath.Join(tmp, "cache")}
	idx, err := c.Index(context.Background(), srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	e, _ := idx.Find("pdf")
	if err := c.Export(context.Background(), e, filepath.Join(tmp, "installed", "pdf")); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Name, e.Type)
	// Output: pdf archive
}
