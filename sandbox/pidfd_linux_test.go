package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestStartLeavesPidfdsWorking: the first process a skillpm starts may be
// a confined handler, started from the forking thread under the filter,
// where pidfd_send_signal fails; Go's os package checks once, on its
// first start, whether pidfds work, and must not conclude from that
// thread that they do not, for every process it starts afterwards (git,
// the proxy, other handlers). The test runs itself again in a fresh
// process, whose first start is Start's.
func TestStartLeavesPidfdsWorking(t *testing.T) {
	const env = "SANDBOX_TEST_FIRST_START"
	if os.Getenv(env) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStartLeavesPidfdsWorking$", "-test.count=1")
		cmd.Env = append(os.Environ(), env+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	if err := Available(); err != nil {
		t.Fatalf("this Linux machine cannot enforce the sandbox: %v", err)
	}
	prog, rt, err := ProgramPaths("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	pol, err := Build(Permissions{}, Target{WorkDir: t.TempDir(), TempDir: t.TempDir(), Program: prog, Runtime: rt})
	if err != nil {
		t.Fatal(err)
	}
	confined := exec.Command(prog)
	r, err := Start(confined, pol)
	if err != nil {
		t.Fatal(err)
	}
	confined.Wait()
	r.Done()

	plain := exec.Command("sleep", "60")
	if err := plain.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { plain.Process.Kill(); plain.Wait() }()
	fds, _ := filepath.Glob("/proc/self/fd/*")
	for _, fd := range fds {
		if l, _ := os.Readlink(fd); l == "anon_inode:[pidfd]" {
			return
		}
	}
	t.Errorf("a process started after a confined one has no pidfd: the os package stopped using them")
}
