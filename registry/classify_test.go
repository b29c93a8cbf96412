package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"testing"
)

// A local file error carries a bare errno, which is a net.Error too: it
// must not read as the registry's failure (exit 5, "check the registry
// address"), while a connection's errors still do.
func TestClassifyLocalErrno(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("read layer: %w", &fs.PathError{Op: "write", Path: "/cache/blobs/sha256/(unnamed)", Err: syscall.ENOSPC}),
		&fs.PathError{Op: "open", Path: "/cache/blobs", Err: syscall.EACCES},
		fmt.Errorf("copy: %w", &os.SyscallError{Syscall: "copy_file_range", Err: syscall.EDQUOT}),
	} {
		if got := classify(err); errors.Is(got, ErrNetwork) || got != err {
			t.Errorf("classify(%v) = %v; want it unchanged, not ErrNetwork", err, got)
		}
	}
	for _, err := range []error{
		&net.OpError{Op: "read", Net: "tcp", Err: &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}},
		fmt.Errorf("fetch: %w", syscall.ECONNREFUSED),
		&net.DNSError{Err: "no such host", Name: "registry.invalid"},
	} {
		if got := classify(err); !errors.Is(got, ErrNetwork) {
			t.Errorf("classify(%v) = %v; want ErrNetwork", err, got)
		}
	}
}
