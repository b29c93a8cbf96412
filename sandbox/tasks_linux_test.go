//go:build linux

package sandbox

import (
	"os"
	"testing"
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
	if n := threads(os.Getpid()); n < 2 || n > len(tasks)+16 {
		t.Fatalf("threads(self) = %d; /proc/self/task holds %d", n, len(tasks))
	}
	if n := threads(1 << 30); n != 1 {
		t.Fatalf("threads of a process that does not exist = %d; want 1", n)
	}
	found := false
	for _, pid := range processes() {
		found = found || pid == os.Getpid()
	}
	if !found {
		t.Fatal("processes() does not list this process")
	}
}
