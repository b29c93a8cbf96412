package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/registry/remote"
)

// cmdPushLayout copies what TAG names in an OCI image layout committed
// under the repository's testdata/ (another tool's artifact, byte for
// byte: an index, its manifests and blobs) to a registry repository,
// plain HTTP, and prints the digest TAG names.
//
//	push-layout LAYOUT TAG REPOSITORY:TAG
//
// LAYOUT is relative to the repository's testdata/ folder, e.g.
// peers/toolhive/layout.
func cmdPushLayout(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: push-layout LAYOUT TAG REPOSITORY:TAG")
	}
	wd, err := os.Getwd() // the e2e package folder
	ts.Check(err)
	dir := filepath.Join(wd, "..", "testdata", filepath.FromSlash(args[0]))
	src, err := oci.NewFromFS(context.Background(), os.DirFS(dir))
	ts.Check(err)
	repo, err := remote.NewRepository(args[2])
	ts.Check(err)
	repo.PlainHTTP = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := oras.Copy(ctx, src, args[1], repo, repo.Reference.Reference, oras.DefaultCopyOptions)
	ts.Check(err)
	fmt.Fprintln(ts.Stdout(), d.Digest)
}
