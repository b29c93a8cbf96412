//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestMachineTasksAndThreads(t *testing.T) {
	total, ok := machineTasks()
	if !ok || total < 1 {
		t.Fatalf("machineTasks() = %d, %v; want the machine's task count", total, ok)
	}
	// This test process runs several threads (Go's runtime starts them).
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	c := &census{}
	if n := c.threads(os.Getpid()); n < 2 || n > len(tasks)+16 {
		t.Fatalf("threads(self) = %d; /proc/self/task holds %d", n, len(tasks))
	}
	if n := c.threads(1 << 30); n != 1 {
		t.Fatalf("threads of a process that does not exist = %d; want 1", n)
	}
	pids := c.processes(nil)
	if !slices.Contains(pids, os.Getpid()) {
		t.Fatalf("processes() = %v; it does not list this process", pids)
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			want = append(want, pid)
		}
	}
	// Processes come and go between the two listings.
	if len(pids) < len(want)-20 || len(pids) > len(want)+20 {
		t.Fatalf("processes() lists %d processes; /proc holds %d", len(pids), len(want))
	}
}

// realtimeThreads returns the ids of this process's threads in the
// SCHED_FIFO class.
func realtimeThreads(t *testing.T) []int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var rt []int
	for _, e := range tasks {
		tid, _ := strconv.Atoi(e.Name())
		if a, err := unix.SchedGetAttr(tid, 0); err == nil && a.Policy == unix.SCHED_FIFO {
			rt = append(rt, tid)
		}
	}
	return rt
}

// TestWatcherRealtime: where this process may use the real-time class
// (root, as in CI), a Watcher of a sandbox without namespaces runs its
// own thread and the forking thread SCHED_FIFO while the run lasts, so
// that a fork bomb cannot starve the count and the kill; the handler
// does not run in that class, and no thread stays in it afterwards.
func TestWatcherRealtime(t *testing.T) {
	if err := Available(); err != nil {
		t.Fatalf("this Linux machine cannot enforce the sandbox: %v", err)
	}
	if abiVersion() < 6 {
		t.Fatalf("Landlock ABI %d: no sandbox without namespaces here", abiVersion())
	}
	// Whether this process may: a thread of its own tries, and ends.
	may := make(chan bool)
	go func() {
		runtime.LockOSThread()
		ok := realtime(0)
		leaveRealtime()
		may <- ok
	}()
	want := 0
	if <-may {
		want = 2
	}
	t.Logf("real-time class allowed: %v", want > 0)
	prog, rt, err := ProgramPaths("/bin/sleep")
	if err != nil {
		t.Fatal(err)
	}
	pol, err := Build(Permissions{}, Target{WorkDir: t.TempDir(), TempDir: t.TempDir(), Program: prog, Runtime: rt})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, "60")
	r, err := Start(cmd, pol)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Done()
	w := Watch(r, cmd.Process, DefaultMaxProcs)
	await := func(n int, when string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for got := realtimeThreads(t); len(got) != n; got = realtimeThreads(t) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: threads %v are SCHED_FIFO; want %d of them", when, got, n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	await(want, "while the run lasts")
	if want > 0 && !slices.Contains(realtimeThreads(t), r.tid) {
		t.Errorf("the forking thread %d is not SCHED_FIFO", r.tid)
	}
	if a, err := unix.SchedGetAttr(cmd.Process.Pid, 0); err != nil || a.Policy != unix.SCHED_NORMAL {
		t.Errorf("the handler's class: %+v, %v; want SCHED_NORMAL", a, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if n := w.Stop(); n != 0 {
		t.Errorf("Stop() = %d; want 0, nothing was over the limit", n)
	}
	r.Done()
	await(0, "after the run")
}
