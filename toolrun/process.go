package toolrun

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/skillpm/skillpm/sandbox"
)

// truncatedMarker ends a stream that went over Options.MaxOutput.
const truncatedMarker = "[output truncated]"

const (
	// killGrace is how long a timed-out or cancelled process group has
	// between SIGTERM and SIGKILL.
	killGrace = 2 * time.Second
	// pipeGrace is how long output is still read after the main process
	// exited and its group was killed, in case an escaped descendant (one
	// that left the group) still holds the pipes.
	pipeGrace = 500 * time.Millisecond
)

// proc is one child process to run: argv, no shell.
type proc struct {
	path        string
	args        []string
	stdin       []byte
	dir         string
	env         []string
	timeout     time.Duration
	maxOutput   int
	stderr      io.Writer         // optional live copy of the child's stderr
	groups      *Groups           // optional; told about the child while it runs
	runtime     string            // python, node, bash or "" (for finding a shim's interpreter)
	redact      *strings.Replacer // if set, replaces secret values in stdout and stderr
	policy      *sandbox.Policy   // if set, run confined through launcher
	launcher    string
	proxy       Proxy // the filtering proxy of a NetProxy policy
	viaLauncher bool  // benchmarks: use the launcher even when not needed
}

// outcome is what running a proc produced.
type outcome struct {
	stdout, stderr string // capped, with the marker appended if cut
	stdoutCut      bool
	exitCode       int // -1 if the process was not started or died from a signal
	timedOut       bool
	tasks          int // > 0: the sandbox held this many tasks, over taskLimit, and was killed
	taskLimit      int
	cancelled      error // the caller's ctx error, if it ended the run
	duration       time.Duration
}

// run starts p in its own process group, feeds stdin, drains stdout and
// stderr into capped buffers, and waits. On timeout or cancellation the
// whole group gets SIGTERM, then SIGKILL after killGrace. Whatever the main
// process leaves behind in its group is killed when it exits. The error is
// non-nil only if the process could not be started.
func (p proc) run(ctx context.Context) (outcome, error) {
	start := time.Now()
	runCtx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()

	inR, inW, err := os.Pipe()
	if err != nil {
		return outcome{exitCode: -1}, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return outcome{exitCode: -1}, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return outcome{exitCode: -1}, err
	}

	// No descriptor skillpm was started with reaches the tool.
	sandbox.NoInherit()
	cmd := exec.CommandContext(runCtx, p.path, p.args...)
	cmd.Dir = p.dir
	cmd.Env = p.env
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would mean "inherit everything"
	}
	// Plain files, not writers: os/exec then starts no copying goroutines
	// and Wait returns as soon as the main process exits.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	setGroup(cmd)
	direct := p.policy != nil && !sandbox.NeedsLauncher(*p.policy) && !p.viaLauncher
	if p.policy != nil && !direct {
		if err := sandbox.Wrap(cmd, *p.policy, p.launcher); err != nil {
			closeAll(inR, inW, outR, outW, errR, errW)
			return outcome{exitCode: -1}, err
		}
	}
	var started atomic.Pointer[sandbox.Running] // read by Cancel, which may race Start's return
	cmd.Cancel = func() error {
		err := terminateGroup(cmd.Process)
		if running := started.Load(); running != nil {
			running.Signal(syscall.SIGTERM) // also what left the group
			if running.PID1() && !sandbox.CatchesSIGTERM(cmd.Process.Pid) {
				// PID 1 of its namespace: the kernel drops a SIGTERM it
				// does not catch, and its default action would have ended it.
				cmd.Process.Kill()
			}
		}
		return err
	}
	cmd.WaitDelay = killGrace // then os/exec kills the main process outright

	var running *sandbox.Running
	if direct {
		running, err = sandbox.Start(cmd, *p.policy)
		started.Store(running)
	} else {
		err = cmd.Start()
	}
	if err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return outcome{exitCode: -1}, err
	}
	if running != nil {
		defer running.Done()
	}
	closeAll(inR, outW, errW) // the child has its copies
	p.groups.add(cmd.Process)
	var watch *sandbox.Watcher // a fork bomb ends here, not at the timeout
	if p.policy != nil && p.policy.MaxProcs > 0 {
		watch = sandbox.Watch(running, cmd.Process, p.policy.MaxProcs)
	}

	go func() {
		inW.Write(p.stdin) // EPIPE if the child does not read: fine
		inW.Close()
	}()
	stdout := &capped{max: p.maxOutput}
	stderr := &capped{max: p.maxOutput}
	var safe *termSafe
	var live *lineRedactor
	if p.stderr != nil {
		safe = &termSafe{w: p.stderr}
		stderr.tee = safe
		if p.redact != nil {
			live = &lineRedactor{w: safe, r: p.redact}
			stderr.tee = live
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go drain(&wg, outR, stdout)
	go drain(&wg, errR, stderr)

	waitErr := cmd.Wait()
	tasks := 0
	if watch != nil {
		tasks = watch.Stop()
	}
	p.groups.remove(cmd.Process)
	killGroup(cmd.Process) // sweep up what the main process left running
	if running != nil {
		running.Signal(syscall.SIGKILL) // and what left its group (setsid, double fork)
	}
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(pipeGrace):
		closeAll(outR, errR) // unblocks the readers
		<-drained
	}
	closeAll(inW, outR, errR)
	if live != nil {
		live.Flush()
	}
	if safe != nil {
		safe.Flush()
	}

	oc := outcome{
		stdout:    redacted(p.redact, stdout.String()),
		stderr:    redacted(p.redact, stderr.String()),
		stdoutCut: stdout.cut,
		exitCode:  cmd.ProcessState.ExitCode(),
		duration:  time.Since(start),
	}
	if tasks > 0 {
		oc.tasks, oc.taskLimit = tasks, p.policy.MaxProcs
	}
	if waitErr != nil && runCtx.Err() != nil && tasks == 0 {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			oc.cancelled = ctx.Err()
		} else {
			oc.timedOut = true
		}
	}
	return oc, nil
}

func drain(wg *sync.WaitGroup, r io.Reader, w io.Writer) {
	defer wg.Done()
	io.Copy(w, r) // capped never fails, so this reads until EOF or close
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// capped keeps the first max bytes written to it and counts the rest as
// cut, while accepting every write so the child never blocks on a full
// pipe.
type capped struct {
	buf []byte
	max int
	cut bool
	tee io.Writer
}

func (c *capped) Write(p []byte) (int, error) {
	if c.tee != nil {
		c.tee.Write(p) // best effort; a failing log writer must not stall the child
	}
	room := c.max - len(c.buf)
	if room >= len(p) {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	if room > 0 {
		c.buf = append(c.buf, p[:room]...)
	}
	c.cut = true
	return len(p), nil
}

// String returns the kept bytes; if output was cut, it trims a split UTF-8
// sequence at the end and appends a newline and the marker.
func (c *capped) String() string {
	if !c.cut {
		return string(c.buf)
	}
	b := c.buf
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				b = b[:i] // the cap split a multi-byte character
			}
			break
		}
	}
	var s strings.Builder
	s.Write(b)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		s.WriteByte('\n')
	}
	s.WriteString(truncatedMarker)
	return s.String()
}

// redacted returns s with r's replacements, or s if r is nil.
func redacted(r *strings.Replacer, s string) string {
	if r == nil {
		return s
	}
	return r.Replace(s)
}
