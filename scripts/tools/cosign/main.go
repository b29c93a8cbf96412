// Command cosign is sigstore's cosign CLI (pinned in go.mod), which the
// e2e script cosign.txtar checks skillpm's signatures and attestations
// with.
//
// Upstream's cmd/cosign/main.go is this program plus two things the
// suite does not use: the cloud KMS signer plugins (AWS, Azure, GCP,
// Vault: about 120 packages of a 1,400-package build, the largest single
// step of a first scripts/test), and a rewrite of deprecated flag
// spellings. The command tree, verification and every flag are
// upstream's cli package.
package main

import (
	"errors"
	"log"
	"os"

	"github.com/sigstore/cosign/v3/cmd/cosign/cli"
	cosignerrors "github.com/sigstore/cosign/v3/cmd/cosign/errors"
)

func main() {
	if err := cli.New().Execute(); err != nil {
		// As upstream: a CosignError carries the exit code for its kind.
		var ce *cosignerrors.CosignError
		if errors.As(err, &ce) {
			log.Printf("error during command execution: %v", err)
			os.Exit(ce.ExitCode())
		}
		log.Fatalf("error during command execution: %v", err)
	}
}
