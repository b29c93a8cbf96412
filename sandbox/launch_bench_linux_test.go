//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestMain lets the test binary serve as the sandbox launcher.
func TestMain(m *testing.M) {
	if IsLauncher(os.Args) {
		code, err := Launch(os.Args)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// BenchmarkLaunch splits the cost of a confined start of /bin/true: a
// plain fork+exec; the same in new user, PID and network namespaces
// (the kernel's share); confined by Start (declared permissions:
// namespaces, Landlock and the exec filter; the default profile: no
// namespaces; no second program either way); through the launcher (this test binary, which
// links little: the re-exec, Landlock and seccomp); and through the
// launcher named by $SKILLPM_LAUNCHER (the skillpm binary, whose package
// initialisation is the difference), when set.
func BenchmarkLaunch(b *testing.B) {
	if err := Available(); err != nil {
		b.Fatal(err)
	}
	prog, rt, err := ProgramPaths("/bin/true")
	if err != nil {
		b.Fatal(err)
	}
	pol, err := Build(Permissions{Declared: true}, Target{WorkDir: b.TempDir(), TempDir: b.TempDir(), Program: prog, Runtime: rt})
	if err != nil {
		b.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, prep func(*exec.Cmd) error) {
		for b.Loop() {
			cmd := exec.Command(prog)
			cmd.Env = []string{}
			if err := prep(cmd); err != nil {
				b.Fatal(err)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	}
	b.Run("direct", func(b *testing.B) { run(b, func(*exec.Cmd) error { return nil }) })
	for _, ns := range []struct {
		name  string
		flags uintptr
	}{
		{"user+pid", syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID},
		{"user+pid+net", syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET},
	} {
		b.Run("namespaces-"+ns.name, func(b *testing.B) {
			run(b, func(cmd *exec.Cmd) error {
				cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: ns.flags}
				return nil
			})
		})
	}
	def, err := Build(Permissions{}, Target{WorkDir: b.TempDir(), TempDir: b.TempDir(), Program: prog, Runtime: rt})
	if err != nil {
		b.Fatal(err)
	}
	// start: declared permissions without subprocesses (user and PID
	// namespaces, exec supervisor); start-default: the default profile
	// (no namespaces).
	for name, p := range map[string]Policy{"start": pol, "start-default": def} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(prog)
				cmd.Env = []string{}
				r, err := Start(cmd, p)
				if err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				r.Signal(syscall.SIGKILL)
				r.Done()
			}
		})
	}
	b.Run("launcher", func(b *testing.B) { run(b, func(cmd *exec.Cmd) error { return Wrap(cmd, pol, self) }) })
	if l := os.Getenv("SKILLPM_LAUNCHER"); l != "" {
		b.Run("launcher-skillpm", func(b *testing.B) { run(b, func(cmd *exec.Cmd) error { return Wrap(cmd, pol, l) }) })
	}
}
