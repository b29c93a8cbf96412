//go:build unix

package toolrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// spawner starts a background grandchild `sleep`, records its pid, then
// either blocks (so the run times out) or exits at once.
const spawner = `#!/bin/bash
cat >/dev/null
sleep 300 &
echo $! > "$PIDFILE"
%s
`

func TestProcessGroupKilled(t *testing.T) {
	tests := []struct {
		name     string
		tail     string // what the script does after spawning
		exec     bool   // use Exec instead of RunTool
		wantKind Kind
	}{
		{name: "RunTool timeout", tail: "sleep 300", wantKind: ExecutionTimeout},
		{name: "Exec timeout", tail: "sleep 300", exec: true, wantKind: ExecutionTimeout},
		{name: "SIGTERM ignored", tail: "trap '' TERM\nwhile :; do sleep 0.05; done", wantKind: ExecutionTimeout},
		{name: "leftover after clean exit", tail: `echo '{"ok":true}'`},
		{name: "Exec leftover after clean exit", tail: "echo done", exec: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pid")
			dir := writeSkill(t, map[string]file{"spawn.sh": {body: strings.Replace(spawner, "%s", tt.tail, 1)}})
			// The timeout must outlast bash starting and writing the pid
			// file even on a loaded machine (300ms did not); runs that
			// exit cleanly get far longer, so only a hang times out.
			timeout := 5 * time.Second
			if tt.wantKind == "" {
				timeout = time.Minute
			}
			opts := Options{Timeout: timeout, Env: append(os.Environ(), "PIDFILE="+pidFile), AllowEnv: []string{"PIDFILE"}}
			secrets := []string{"PIDFILE"}
			start := time.Now()
			var err error
			if tt.exec {
				_, err = Exec(context.Background(), Script{Dir: dir, Path: "spawn.sh", Secrets: secrets}, opts)
			} else {
				_, err = RunTool(context.Background(), Tool{Dir: dir, Entrypoint: "spawn.sh", Secrets: secrets}, nil, opts)
			}
			elapsed := time.Since(start)
			if got := kindOf(t, err); got != tt.wantKind {
				t.Fatalf("kind = %q (%v); want %q", got, err, tt.wantKind)
			}
			// Not a timing test: this only proves the run did not wait for
			// the grandchild's 300s sleep.
			if limit := opts.Timeout + killGrace + time.Minute; elapsed > limit {
				t.Errorf("run took %v; want well under the grandchild's 300s", elapsed)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatalf("grandchild pid file: %v", err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			assertGone(t, pid)
		})
	}
}

// assertGone waits briefly for pid to disappear (a killed orphan may linger
// as a zombie until init reaps it) and fails if it is still running.
func assertGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if isZombie(pid) {
			return // dead, waiting to be reaped by its new parent
		}
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still alive (kill(pid, 0) = %v)", pid, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// isZombie reports whether /proc says pid has exited but was not reaped.
func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// Format: pid (comm) state ...; comm may contain spaces and parens.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// TestGroupsKillAll kills a running child's whole group at once, without
// the SIGTERM grace a cancelled run gets: what a host does on a second
// Ctrl-C. The child ignores SIGTERM, so only SIGKILL stops it.
func TestGroupsKillAll(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	dir := writeSkill(t, map[string]file{"spawn.sh": {body: strings.Replace(spawner, "%s", "trap '' TERM\nwhile :; do sleep 0.05; done", 1)}})
	groups := &Groups{}
	opts := Options{Timeout: time.Hour, Env: append(os.Environ(), "PIDFILE="+pidFile), AllowEnv: []string{"PIDFILE"}, Groups: groups}
	done := make(chan error, 1)
	go func() {
		_, err := Exec(context.Background(), Script{Skill: "s", Dir: dir, Path: "spawn.sh", Secrets: []string{"PIDFILE"}}, opts)
		done <- err
	}()
	pid := waitPID(t, pidFile)
	// before runs first, with the count, while the group still runs: a
	// host prints why it exits there, before the killed run can end.
	if n := groups.KillAll(func(n int) {
		if n != 1 || syscall.Kill(pid, 0) != nil || isZombie(pid) {
			t.Errorf("before(%d) with the child alive: %v; want 1, before the kill", n, syscall.Kill(pid, 0) == nil && !isZombie(pid))
		}
	}); n != 1 {
		t.Errorf("KillAll = %d; want 1 running group", n)
	}
	select {
	case err := <-done:
		if got := kindOf(t, err); got != ExecutionFailed || !strings.Contains(err.Error(), "killed by a signal") {
			t.Errorf("run ended with %q (%v); want ExecutionFailed, killed by a signal", got, err)
		}
	case <-time.After(time.Minute): // a hang guard, not a timing assertion
		t.Fatal("the run did not end after KillAll")
	}
	assertGone(t, pid)
	if n := groups.KillAll(nil); n != 0 {
		t.Errorf("KillAll after the run = %d; want 0", n)
	}
}

// waitPID waits for the spawner to write its grandchild's pid.
func waitPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s: %v", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
