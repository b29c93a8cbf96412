//go:build unix

package verify

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/skillpm/skillpm/internal/boundedfile"
)

// skills.yaml may name the trust policy file, so a checkout can point it
// at /dev/zero or a FIFO: refused at once, naming the file, not read
// until memory runs out or waited on.
func TestReadPolicyHostileFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "policy.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("version: 1\n"+strings.Repeat("#", MaxPolicySize)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want error
	}{
		{"/dev/zero", boundedfile.ErrNotRegular},
		{fifo, boundedfile.ErrNotRegular},
		{big, boundedfile.ErrTooLarge},
	} {
		_, err := ReadPolicy(tc.path)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("ReadPolicy(%s): %v; want %v naming the file", tc.path, err, tc.want)
		}
	}
}
