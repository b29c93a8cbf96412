//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A handler that forks (or starts threads) without end fills the
// machine's process table, and then no program of any user can start
// one. RLIMIT_NPROC does not bound a sandbox: outside a user namespace it
// counts every process of the user, and the kernel exempts uid 0 from it
// everywhere, in a user namespace too (a skillpm running as root, as in
// most CI jobs and containers). A cgroup's pids.max would, where skillpm
// may create cgroups, which it mostly may not. So a Watcher counts the
// sandbox's tasks (processes and threads) while it runs and kills it
// whole when they are more than the policy's MaxProcs.
//
// Counting the sandbox's tasks means looking at every process of the
// machine, so the Watcher does it only when needed: every taskTick it
// reads the machine's task count (/proc/loadavg), and it counts the
// sandbox's own when the machine has gained more than MaxProcs tasks
// since it last did, and once a second. A handler can therefore go past
// the limit by what it starts in one tick before it is stopped, or, when
// other programs end as many tasks as it starts, in one second: a few
// hundred to a few thousand tasks on a small machine, short of the
// process table's size (pid_max is at least 32,768).
//
// This is a check from user space, not a limit the kernel enforces: an
// exponential fork bomb on a machine with few cores competes with the
// Watcher for the processor, and one run as root (exempt from
// RLIMIT_NPROC) can still fill the process table before it is stopped.

// taskTick is how often a Watcher reads the machine's task count, and
// taskRecount how many ticks at most pass between two counts of the
// sandbox's own tasks.
const (
	taskTick    = 20 * time.Millisecond
	taskRecount = 50
)

// Watcher watches the tasks of a running sandbox; see Watch.
type Watcher struct {
	stop chan struct{}
	done chan struct{}
	over int // the tasks counted when it killed the sandbox; read after done
}

// Watch starts watching the sandbox whose first process is p, started by
// Start (r) or Wrap (r nil): when it holds more than max tasks, Watch
// kills all of it. Call Stop once the first process has been waited for.
func Watch(r *Running, p *os.Process, max int) *Watcher {
	w := &Watcher{stop: make(chan struct{}), done: make(chan struct{})}
	c := census{r: r, self: os.Getpid()}
	kill := func() { p.Kill() } // PID 1 of its namespace: the namespace dies with it
	if r != nil && !r.pid1 {
		kill = func() { r.Signal(syscall.SIGKILL) }
	} else {
		var st unix.Stat_t
		if err := unix.Stat("/proc/"+strconv.Itoa(p.Pid)+"/ns/pid", &st); err != nil {
			close(w.done) // it has already exited
			return w
		}
		c.r, c.dev, c.ino = nil, st.Dev, st.Ino
	}
	go w.run(c, kill, max)
	return w
}

// Stop stops watching. It returns the number of tasks the sandbox held
// when the Watcher killed it, or 0 if it did not.
func (w *Watcher) Stop() int {
	select {
	case <-w.done:
	default:
		close(w.stop)
		<-w.done
	}
	return w.over
}

func (w *Watcher) run(c census, kill func(), max int) {
	defer close(w.done)
	t := time.NewTicker(taskTick)
	defer t.Stop()
	// others is how many of the machine's tasks are not the sandbox's,
	// as of the last count; at the start the sandbox is one process.
	others, ok := machineTasks()
	others--
	for tick := 1; ; tick++ {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		total, ok2 := machineTasks()
		// Others' tasks that end make room the sandbox can take
		// unseen: the machine's count is only a hint, and the
		// sandbox's own are counted at least every taskRecount.
		others = min(others, total-1)
		if ok && ok2 && total-others <= max && tick%taskRecount != 0 {
			continue
		}
		n, alive := c.count()
		if !alive {
			return // the run is over
		}
		if n > max {
			kill()
			w.over = n
			return
		}
		others, ok = total-n, ok2
	}
}

// machineTasks returns the number of tasks (processes and threads) of
// the machine: the number after the slash in /proc/loadavg.
func machineTasks() (int, bool) {
	var buf [128]byte
	fd, err := unix.Open("/proc/loadavg", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	n, err := unix.Read(fd, buf[:])
	unix.Close(fd)
	if err != nil || n <= 0 {
		return 0, false
	}
	f := bytes.Fields(buf[:n])
	if len(f) < 4 {
		return 0, false
	}
	_, after, found := bytes.Cut(f[3], []byte("/"))
	v, err := strconv.Atoi(string(after))
	return v, found && err == nil
}

// census counts a sandbox's tasks. A sandbox started by Start without
// namespaces is its forking thread's Landlock domain, which only that
// thread can tell (see probeDomain); any other is a PID namespace,
// named by its device and inode.
type census struct {
	r        *Running
	dev, ino uint64
	self     int
}

// count returns the sandbox's tasks, and false if the run is over.
func (c census) count() (int, bool) {
	pids := processes()
	in := make([]bool, len(pids))
	if c.r != nil {
		if !c.r.probe(pids, in) {
			return 0, false
		}
	} else {
		var st unix.Stat_t
		for i, pid := range pids {
			in[i] = unix.Stat("/proc/"+strconv.Itoa(pid)+"/ns/pid", &st) == nil && st.Dev == c.dev && st.Ino == c.ino
		}
	}
	n := 0
	for i, pid := range pids {
		if in[i] && pid != c.self {
			n += threads(pid)
		}
	}
	return n, true
}

// processes returns the ids of the machine's processes.
func processes() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	var pids []int
	for {
		names, err := d.Readdirnames(1024)
		for _, s := range names {
			if pid, err := strconv.Atoi(s); err == nil && pid > 0 {
				pids = append(pids, pid)
			}
		}
		if err != nil {
			return pids
		}
	}
}

// threads returns the number of threads of process pid (num_threads in
// /proc/PID/stat), at least one: a process that just exited still holds
// its id until it is reaped.
func threads(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 1
	}
	// The name (field 2) is in parentheses and may hold anything;
	// num_threads is field 20, the 18th after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 1
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 18 {
		return 1
	}
	if n, err := strconv.Atoi(string(f[17])); err == nil && n > 1 {
		return n
	}
	return 1
}

// probe asks r's forking thread which of pids are in its Landlock domain;
// false if the thread has ended.
func (r *Running) probe(pids []int, in []bool) bool {
	req := probeReq{pids: pids, in: in, done: make(chan struct{})}
	select {
	case r.probes <- req:
		<-req.done
		return true
	case <-r.release:
		return false
	}
}

// probeDomain sets in[i] for each of pids that this thread may signal:
// with Landlock's signal scope (ABI 6), the processes of its domain (and
// of domains nested in it). kill with signal 0 checks and sends nothing.
func probeDomain(pids []int, in []bool) {
	for i, pid := range pids {
		in[i] = unix.Kill(pid, 0) == nil
	}
}
