package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdInterrupt runs skillpm with INPUT written to its stdin, which
// stays open, and interrupts it mid-run: it waits until FILE exists (a
// tool writes it once it runs) or, for -when stdout:REGEXP, until its
// stdout matches REGEXP, sends each of SENDS in turn, 200ms apart
// (TERM, INT, or EOF to close stdin), then waits at most -within for
// skillpm to exit and fails unless it exits with CODE. A skillpm still
// running after -within is killed and the script fails: the point is that
// it exits by itself. Its stdout and stderr are kept for 'stdout' and
// 'stderr'.
//
//	interrupt [-when FILE|stdout:REGEXP] [-send TERM,INT,EOF] [-within 15s] CODE INPUT ARGS...
func cmdInterrupt(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: interrupt [-when FILE|stdout:REGEXP] [-send TERM,INT,EOF] [-within DURATION] CODE INPUT ARGS..."
	if neg {
		ts.Fatalf("interrupt does not support '!': CODE says what is expected")
	}
	when, sends, within := "", []string{"TERM"}, 15*time.Second
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-when":
			when = args[1]
		case "-send":
			sends = strings.Split(args[1], ",")
		case "-within":
			d, err := time.ParseDuration(args[1])
			if err != nil {
				ts.Fatalf("interrupt: -within: %v", err)
			}
			within = d
		default:
			ts.Fatalf("%s", usage)
		}
		args = args[2:]
	}
	if len(args) < 2 {
		ts.Fatalf("%s", usage)
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("interrupt: exit code %q is not a number", args[0])
	}
	input := ts.ReadFile(args[1])

	cmd := exec.Command(filepath.Join(binDir, "skillpm"), args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = scriptEnviron(ts)
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	_, err = stdin.Write([]byte(input))
	ts.Check(err)

	fail := func(format string, a ...any) {
		cmd.Process.Kill()
		<-exited
		ts.Logf("skillpm stderr:\n%s", stderr.String())
		ts.Fatalf(format, a...)
	}
	if when != "" {
		ready := func() bool {
			fi, err := os.Stat(ts.MkAbs(when))
			return err == nil && fi.Size() > 0
		}
		if pat, ok := strings.CutPrefix(when, "stdout:"); ok {
			re, err := regexp.Compile(pat)
			if err != nil {
				fail("interrupt: -when %s: %v", when, err)
			}
			ready = func() bool { return re.MatchString(stdout.String()) }
		}
		deadline := time.Now().Add(60 * time.Second)
		for !ready() {
			select {
			case err := <-exited:
				ts.Logf("skillpm stderr:\n%s", stderr.String())
				ts.Fatalf("skillpm exited (%v) before %s appeared", err, when)
			case <-time.After(50 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				fail("%s did not appear within 60s", when)
			}
		}
	}
	for i, s := range sends {
		if i > 0 {
			time.Sleep(200 * time.Millisecond)
		}
		switch s {
		case "TERM":
			err = cmd.Process.Signal(syscall.SIGTERM)
		case "INT":
			err = cmd.Process.Signal(os.Interrupt)
		case "EOF":
			err = stdin.Close()
		default:
			fail("interrupt: cannot send %q; want TERM, INT or EOF", s)
		}
		if err != nil && !errors.Is(err, os.ErrProcessDone) {
			fail("interrupt: send %s: %v", s, err)
		}
	}
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(within):
		fail("skillpm did not exit within %s of %s", within, strings.Join(sends, ","))
	}
	stdin.Close()
	ts.Stdout().Write([]byte(stdout.String()))
	ts.Stderr().Write([]byte(stderr.String()))
	got := 0
	if werr != nil {
		var ee *exec.ExitError
		if !errors.As(werr, &ee) {
			ts.Fatalf("interrupt: %v", werr)
		}
		if got = ee.ExitCode(); got < 0 {
			ts.Fatalf("skillpm did not exit by itself: %v", werr)
		}
	}
	if got != want {
		ts.Fatalf("skillpm exited with code %d, want %d", got, want)
	}
}

// lockedBuffer is a bytes.Buffer that os/exec's copying goroutine and the
// command may use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// cmdGone fails if any process whose pid FILE lists (whitespace
// separated) is still running. A killed process may linger briefly as a
// zombie until its new parent reaps it; that counts as gone.
//
//	gone FILE
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gone FILE")
	}
	fields := strings.Fields(ts.ReadFile(args[0]))
	if len(fields) == 0 {
		ts.Fatalf("gone: %s lists no pids", args[0])
	}
	for _, f := range fields {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 1 {
			ts.Fatalf("gone: %q in %s is not a pid", f, args[0])
		}
		deadline := time.Now().Add(3 * time.Second)
		for processRunning(ts, pid) {
			if time.Now().After(deadline) {
				ts.Fatalf("process %d is still running", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// scriptEnviron is the script's environment, for a process a custom
// command starts: every variable the script has set, by the names of ours
// and of those the harness sets.
func scriptEnviron(ts *testscript.TestScript) []string {
	names := map[string]bool{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		names[k] = true
	}
	for _, k := range []string{"PATH", "HOME", "SKILLPM_HOME", "NO_COLOR", "LANG", "REGISTRY", "REGISTRY_KIND", "COSIGN", "WORK", "TMPDIR"} {
		names[k] = true
	}
	var env []string
	for k := range names {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}
