package wellknown

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/skillpm/skillpm/source/wellknown/discovery"
)

// A download that cannot be written (a full disk: /dev/full refuses every
// write with ENOSPC) is this machine's failure, not the origin's: it is
// no ErrNetwork, and it still names the skill.
func TestDownloadDiskFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	s := newSite(t)
	s.index(t, discovery.IndexPath, s.artifact("pdf", TypeArchive, "/pdf.tar.gz", tarGz(t, tarEntry{name: "SKILL.md", body: skillMD("pdf")})))
	c := newClient(t)
	idx, err := c.Index(context.Background(), s.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	err = c.download(context.Background(), idx.Skills[0], full)
	if !errors.Is(err, syscall.ENOSPC) || errors.Is(err, ErrNetwork) {
		t.Fatalf("download to a full disk = %v; want ENOSPC, not ErrNetwork", err)
	}
}
