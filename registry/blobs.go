package registry

import (
	"context"
	"fmt"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	orasreg "oras.land/oras-go/v2/registry"
)

// CheckBlobsOptions tune CheckBlobs.
type CheckBlobsOptions struct {
	// Deep downloads every blob and checks it against its digest and
	// size. The zero value only asks the registry whether it serves each
	// blob (a HEAD, comparing the size it states), downloading nothing.
	Deep bool
}

// CheckBlobs confirms that the repository res was resolved from still
// serves the blobs its manifest names: the config and every layer. A
// blob that is gone fails with ErrNotFound; one of another size, or (with
// Deep) content that does not match its digest, with ErrIntegrity.
func (c *Client) CheckBlobs(ctx context.Context, res *Resolved, opts CheckBlobsOptions) error {
	descs := append([]ocispec.Descriptor{res.Layout.Config}, res.Layout.Layers...)
	for _, d := range descs {
		if d.Digest == "" {
			continue
		}
		if err := c.checkBlob(ctx, res, d, opts.Deep); err != nil {
			return err
		}
	}
	return nil
}

func (c *Client) checkBlob(ctx context.Context, res *Resolved, d ocispec.Descriptor, deep bool) error {
	what := fmt.Sprintf("blob %s of %s", d.Digest, res.Ref.Repo())
	if deep {
		rc, err := res.target.Fetch(ctx, d)
		if err != nil {
			return fmt.Errorf("fetch %s: %w", what, classify(err))
		}
		defer rc.Close()
		// The verify reader reads at most d.Size bytes and checks the
		// digest: the read is bounded by what the manifest declares.
		vr := content.NewVerifyReader(rc, d)
		if _, err := io.Copy(io.Discard, vr); err != nil {
			return fmt.Errorf("fetch %s: %w", what, classifyFetch(err, what, d.Size))
		}
		if err := vr.Verify(); err != nil {
			return fmt.Errorf("fetch %s: %w", what, classifyFetch(err, what, d.Size))
		}
		return nil
	}
	if bs, ok := res.target.(interface{ Blobs() orasreg.BlobStore }); ok {
		got, err := bs.Blobs().Resolve(ctx, d.Digest.String())
		if err != nil {
			return fmt.Errorf("head %s: %w", what, classify(err))
		}
		if got.Size != d.Size {
			return fmt.Errorf("head %s: %w: the registry serves %d bytes, the manifest states %d", what, ErrIntegrity, got.Size, d.Size)
		}
		return nil
	}
	ok, err := res.target.Exists(ctx, d)
	if err != nil {
		return fmt.Errorf("look up %s: %w", what, classify(err))
	}
	if !ok {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return nil
}
