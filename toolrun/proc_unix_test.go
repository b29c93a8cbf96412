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
			pidFile := filepath.Join(t.TempDir(), "pid")
			dir := writeSkill(t, map[string]file{"spawn.sh": {body: strings.Replace(spawner, "%s", tt.tail, 1)}})
			opts := Options{Timeout: 300 * time.Millisecond, Env: append(os.Environ(), "PIDFILE="+pidFile)}
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
			if limit := opts.Timeout + killGrace + 2*time.Second; elapsed > limit {
				t.Errorf("run took %v; want < %v", elapsed, limit)
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
