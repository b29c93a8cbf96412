//go:build linux

package sandbox

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"slices"
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
// Watcher for the processor. Where skillpm may (root, or an RLIMIT_RTPRIO
// above 0), the Watcher's thread, and without namespaces the forking
// thread that counts and kills for it, run in the lowest real-time class
// (SCHED_FIFO 1, reset on fork, so nothing they start inherits it) once
// the run has lasted a tick: they then run whenever they are ready,
// however many tasks the handler has made runnable. The Watcher waits on its own thread (poll(2) with a
// timeout), not on the Go runtime's timers, whose threads compete with
// the handler's. Elsewhere a bomb run as root (exempt from RLIMIT_NPROC)
// can still fill the process table before it is stopped.

// taskTick is how often a Watcher reads the machine's task count, and
// taskRecount how many ticks at most pass between two counts of the
// sandbox's own tasks.
const (
	taskTick    = 20 * time.Millisecond
	taskRecount = 50
)

// Watcher watches the tasks of a running sandbox; see Watch.
type Watcher struct {
	wake int // an eventfd Stop writes to, or -1 (then stop)
	stop chan struct{}
	done chan struct{}
	over int // the tasks counted when it killed the sandbox; read after done
}

// Watch starts watching the sandbox whose first process is p, started by
// Start (r) or Wrap (r nil): when it holds more than max tasks, Watch
// kills all of it. Call Stop once the first process has been waited for,
// and before r.Done: the Watcher changes the scheduling class of r's
// forking thread by its thread id, which must not have ended (and been
// reused by another thread) while the Watcher runs.
func Watch(r *Running, p *os.Process, max int) *Watcher {
	w := &Watcher{wake: -1, stop: make(chan struct{}), done: make(chan struct{})}
	c := &census{r: r, self: os.Getpid()}
	kill := func() { p.Kill() } // PID 1 of its namespace: the namespace dies with it
	forker := 0
	if r != nil && !r.pid1 {
		kill = func() { r.Signal(syscall.SIGKILL) }
		forker = r.tid
	} else {
		var st unix.Stat_t
		if err := unix.Stat("/proc/"+strconv.Itoa(p.Pid)+"/ns/pid", &st); err != nil {
			close(w.done) // it has already exited
			return w
		}
		c.r, c.dev, c.ino = nil, st.Dev, st.Ino
	}
	if fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC); err == nil {
		w.wake = fd
	}
	go w.run(c, kill, max, forker)
	return w
}

// Stop stops watching. It returns the number of tasks the sandbox held
// when the Watcher killed it, or 0 if it did not.
func (w *Watcher) Stop() int {
	select {
	case <-w.done:
	default:
		close(w.stop)
		if w.wake >= 0 {
			unix.Write(w.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
		}
		<-w.done
	}
	if w.wake >= 0 {
		unix.Close(w.wake)
		w.wake = -1
	}
	return w.over
}

// run watches until the run is over, Stop is called or it kills the
// sandbox. forker is the forking thread of a sandbox without namespaces,
// else 0.
func (w *Watcher) run(c *census, kill func(), max, forker int) {
	defer close(w.done)
	wait := w.waiter()
	// others is how many of the machine's tasks are not the sandbox's,
	// as of the last count; at the start the sandbox is one process.
	others, ok := machineTasks()
	others--
	for tick := 1; wait(); tick++ {
		if tick == 1 {
			// Most runs end within a tick and need none of this. The
			// thread ends with this goroutine (never unlocked), back in
			// the normal class first: Go parks, not ends, its main
			// thread.
			runtime.LockOSThread()
			defer leaveRealtime()
			if realtime(0) && forker > 0 {
				realtime(forker)
			}
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

// waiter returns a function that waits one taskTick and reports whether
// to go on (false once Stop was called). It waits in poll(2) on this
// thread, which Stop wakes through the eventfd; without one, on a Go
// timer.
func (w *Watcher) waiter() func() bool {
	if w.wake < 0 {
		t := time.NewTicker(taskTick)
		return func() bool {
			select {
			case <-w.stop:
				t.Stop()
				return false
			case <-t.C:
				return true
			}
		}
	}
	fds := []unix.PollFd{{Fd: int32(w.wake), Events: unix.POLLIN}}
	return func() bool {
		deadline := time.Now().Add(taskTick)
		for {
			select {
			case <-w.stop:
				return false
			default:
			}
			left := time.Until(deadline)
			if left <= 0 {
				return true
			}
			unix.Poll(fds, int((left+time.Millisecond-1)/time.Millisecond))
		}
	}
}

// realtime puts thread tid (0: the calling thread) in the lowest
// real-time class, SCHED_FIFO 1, with SCHED_RESET_ON_FORK so that what it
// starts does not inherit it. It reports whether it could: it takes root
// (CAP_SYS_NICE) or an RLIMIT_RTPRIO of at least 1.
func realtime(tid int) bool {
	attr := unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 1, Flags: unix.SCHED_FLAG_RESET_ON_FORK}
	return unix.SchedSetAttr(tid, &attr, 0) == nil
}

// leaveRealtime puts the calling thread, if realtime put it in the
// real-time class, back in the normal one at its nice value. Any thread
// may, as long as it keeps SCHED_RESET_ON_FORK.
func leaveRealtime() {
	if a, err := unix.SchedGetAttr(0, 0); err == nil && a.Policy == unix.SCHED_FIFO {
		attr := unix.SchedAttr{Policy: unix.SCHED_NORMAL, Nice: a.Nice, Flags: unix.SCHED_FLAG_RESET_ON_FORK}
		unix.SchedSetAttr(0, &attr, 0)
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
	i := bytes.IndexByte(buf[:n], '/')
	if i < 0 {
		return 0, false
	}
	v, ok := number(buf[i+1 : n])
	return v, ok && v > 0
}

// number parses the decimal number that starts b, up to the first byte
// that is not a digit; false if b starts with none.
func number(b []byte) (int, bool) {
	v, i := 0, 0
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9' && i < 18; i++ {
		v = v*10 + int(b[i]-'0')
	}
	return v, i > 0
}

// digits returns how many decimal digits v > 0 has.
func digits(v int) int {
	n := 0
	for ; v > 0; v /= 10 {
		n++
	}
	return n
}

// census counts a sandbox's tasks. A sandbox started by Start without
// namespaces is its forking thread's Landlock domain, which only that
// thread can tell (see probeDomain); any other is a PID namespace,
// named by its device and inode.
//
// A count reads a few thousand /proc files while a bomb runs, into
// buffers kept from one count to the next: it must not make work for
// the garbage collector, whose threads are not real-time and, behind a
// bomb's, would stall the Watcher with them.
type census struct {
	r        *Running
	dev, ino uint64
	self     int

	pids []int
	in   []bool
	buf  []byte
}

// count returns the sandbox's tasks, and false if the run is over.
func (c *census) count() (int, bool) {
	c.pids = c.processes(c.pids[:0])
	c.in = slices.Grow(c.in[:0], len(c.pids))[:len(c.pids)]
	if c.r != nil {
		if !c.r.probe(c.pids, c.in) {
			return 0, false
		}
	} else {
		var st unix.Stat_t
		for i, pid := range c.pids {
			c.in[i] = unix.Stat("/proc/"+strconv.Itoa(pid)+"/ns/pid", &st) == nil && st.Dev == c.dev && st.Ino == c.ino
		}
	}
	n := 0
	for i, pid := range c.pids {
		if c.in[i] && pid != c.self {
			n += c.threads(pid)
		}
	}
	return n, true
}

// sizeBuf makes the buffer processes and threads read into, once.
func (c *census) sizeBuf() {
	if c.buf == nil {
		c.buf = make([]byte, 32<<10)
	}
}

// processes appends the ids of the machine's processes to pids.
func (c *census) processes(pids []int) []int {
	c.sizeBuf()
	fd, err := unix.Open("/proc", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return pids
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Getdents(fd, c.buf)
		if err != nil || n <= 0 {
			return pids
		}
		// struct linux_dirent64: inode (8 bytes), offset (8), record
		// length (2), type (1), then the name, NUL-terminated.
		for b := c.buf[:n]; len(b) > 19; {
			size := int(binary.NativeEndian.Uint16(b[16:18]))
			if size <= 19 || size > len(b) {
				break
			}
			name, _, _ := bytes.Cut(b[19:size], []byte{0})
			if pid, ok := number(name); ok && pid > 0 && len(name) == digits(pid) {
				pids = append(pids, pid) // a name that is all digits
			}
			b = b[size:]
		}
	}
}

// threads returns the number of threads of process pid (num_threads in
// /proc/PID/stat), at least one: a process that just exited still holds
// its id until it is reaped.
func (c *census) threads(pid int) int {
	c.sizeBuf()
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 1
	}
	n, err := unix.Read(fd, c.buf[:4096])
	unix.Close(fd)
	if err != nil || n <= 0 {
		return 1
	}
	// The name (field 2) is in parentheses and may hold anything;
	// num_threads is field 20, the 18th after it.
	b := c.buf[:n]
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 1
	}
	b = b[i+1:]
	for f := 0; f < 17; f++ {
		b = bytes.TrimLeft(b, " ")
		j := bytes.IndexByte(b, ' ')
		if j < 0 {
			return 1
		}
		b = b[j:]
	}
	if v, ok := number(bytes.TrimLeft(b, " ")); ok && v > 1 {
		return v
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
