// Command registry is distribution's registry server (the CNCF
// distribution project, pinned in go.mod) with the storage drivers the
// e2e suite and the benchmarks use: the filesystem and in-memory ones.
//
// Upstream's cmd/registry is the same program with every storage driver
// linked in; the cloud ones (Azure, GCS, S3 and CloudFront) bring about
// 400 more packages, which doubled the first build of scripts/test for
// code no test runs. Everything else (the HTTP API, storage, auth,
// garbage collection, the proxy cache) is upstream's registry package.
package main

import (
	_ "net/http/pprof" // as upstream: the debug server's profiles

	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/auth/htpasswd"
	_ "github.com/distribution/distribution/v3/registry/auth/silly"
	_ "github.com/distribution/distribution/v3/registry/auth/token"
	_ "github.com/distribution/distribution/v3/registry/proxy"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/middleware/redirect"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/middleware/rewrite"
)

func main() {
	// As upstream: RootCmd reports its own errors and exits non-zero.
	_ = registry.RootCmd.Execute()
}
