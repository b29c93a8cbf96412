package verify

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/sigproto"
)

// claimBackend describes every bundle as its fields say, unverified, as
// a hostile bundle would have them.
type claimBackend struct{ predicateType, signer string }

func (b claimBackend) Verify(context.Context, *sigproto.VerifyRequest) (*sigproto.VerifyResponse, error) {
	return nil, errors.New("not here")
}

func (b claimBackend) Sign(context.Context, *sigproto.SignRequest) (*sigproto.SignResponse, error) {
	return nil, errors.New("not here")
}

func (b claimBackend) Describe(context.Context, *sigproto.DescribeRequest) (*sigproto.DescribeResponse, error) {
	return &sigproto.DescribeResponse{PredicateType: b.predicateType, Signer: b.signer}, nil
}

// What a bundle claims is shown by inspect; the bundle's author wrote it,
// so it comes back as one line without terminal escapes.
func TestDescribeOneLine(t *testing.T) {
	sg := claimBackend{predicateType: "https://x\n\x1b[2Jsignature", signer: "me@acme.com (issuer)\r\n::error::forged"}
	cl, err := Describe(context.Background(), sg, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{cl.PredicateType, cl.Signer} {
		if strings.ContainsAny(s, "\n\r\x1b") {
			t.Errorf("claim %q has a line break or an escape in it", s)
		}
	}
}
