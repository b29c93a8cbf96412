package verify_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/skillpm/skillpm/internal/sigstorego"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/verify"
)

// Sign a published skill with a key, then check it against a policy:
// the verifier is built once; Check applies one repository's rule.
func Example() {
	ctx := context.Background()
	client := registry.NewClient(registry.Options{})
	ref, _ := registry.ParseReference("ghcr.io/acme/skills/pdf@" + digest.FromString("manifest").String())

	priv, _, _ := verify.GenerateKey([]byte("passphrase"))
	kp, _ := verify.LoadPrivateKey(priv, []byte("passphrase"))
	signer, _ := verify.NewSigner(verify.SignerOptions{Keypair: kp, Sigstore: &sigstorego.Local{}})
	sig, err := signer.Sign(ctx, ref.Repo(), ref.Digest)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := verify.Attach(ctx, client, ref, sig, time.Now()); err != nil {
		log.Fatal(err)
	}

	policy, err := verify.ReadPolicy("policy.yaml")
	if err != nil {
		log.Fatal(err)
	}
	v, err := verify.NewVerifier(policy, verify.Options{Sigstore: &sigstorego.Local{}})
	if err != nil {
		log.Fatal(err)
	}
	res, err := verify.Check(ctx, client, v, ref.Repo(), ref)
	if err != nil {
		log.Fatal(err) // errors.Is(err, verify.ErrPolicy): denied
	}
	fmt.Println("signed by", res.Signer)
}
