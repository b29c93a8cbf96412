package registry

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/internal/filesums"
)

// extractFiles writes a FormatFiles artifact (one layer per file, named
// by its title) into dst, with the checks and atomicity of Unpack.
func (c *Client) extractFiles(ctx context.Context, res *Resolved, dst string, opts UnpackOptions) (UnpackStats, error) {
	lim := opts.Limits.WithDefaults()
	if len(res.Layout.Layers) > lim.MaxFiles {
		return UnpackStats{}, wrapPull(res, &UnsafeArchiveError{Reason: fmt.Sprintf("%d files, over the limit of %d", len(res.Layout.Layers), lim.MaxFiles)})
	}
	st, err := newStager(dst, opts.Overwrite)
	if err != nil {
		return UnpackStats{}, err
	}
	defer st.cleanup()
	st.wantName = opts.Name
	st.recordSums(filesums.From(ctx))
	var total int64
	for _, d := range res.Layout.Layers {
		title := d.Annotations[ocispec.AnnotationTitle]
		name, err := cleanEntryName(title)
		if err != nil {
			return UnpackStats{}, wrapPull(res, err)
		}
		if name == "" {
			return UnpackStats{}, wrapPull(res, unsafeEntry(title, "empty name"))
		}
		if d.Size > lim.MaxFileSize || total+d.Size > lim.MaxBytes {
			return UnpackStats{}, wrapPull(res, unsafeEntry(title, "file is %d bytes; over the size limits", d.Size))
		}
		total += d.Size
		if err := c.writeBlob(ctx, res, st, name, d); err != nil {
			return UnpackStats{}, wrapPull(res, err)
		}
	}
	if opts.Check != nil {
		if err := opts.Check(); err != nil {
			return UnpackStats{}, wrapPull(res, err)
		}
	}
	s, err := st.commit()
	return s, wrapPull(res, err)
}

// writeBlob fetches one file blob into the stager, checking its digest.
func (c *Client) writeBlob(ctx context.Context, res *Resolved, st *stager, name string, d ocispec.Descriptor) error {
	rc, err := res.target.Fetch(ctx, d)
	if err != nil {
		return classify(err)
	}
	defer rc.Close()
	hr := &hashReader{r: &ctxReader{ctx: ctx, r: rc}, h: sha256.New()}
	if err := st.writeFile(name, 0o644, hr, d.Size); err != nil {
		return err
	}
	if n, _ := io.Copy(io.Discard, io.LimitReader(rc, 1)); n > 0 {
		return fmt.Errorf("%w: %s is longer than its descriptor says", ErrIntegrity, name)
	}
	return verifyRest(hr, d.Digest, d.Size, d.Size)
}
