package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestNoInherit: a descriptor the process holds without close-on-exec (as
// one inherited from a shell would be) is not open in a program it
// starts after NoInherit, and is still usable in the process itself.
func TestNoInherit(t *testing.T) {
	fd, err := syscall.Open(os.DevNull, syscall.O_RDONLY, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	open := func() bool {
		// The descriptor is not passed on purpose (no ExtraFiles): it
		// is open in the child only if it was inherited.
		return exec.Command("/bin/sh", "-c", "test -e /proc/self/fd/"+strconv.Itoa(fd)).Run() == nil
	}
	if !open() {
		t.Fatalf("descriptor %d is not inherited even before NoInherit: the test cannot tell", fd)
	}
	NoInherit()
	if open() {
		t.Errorf("descriptor %d still reaches a started program after NoInherit", fd)
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("descriptor %d: flags %#x, %v; want close-on-exec and still open", fd, flags, err)
	}
}
