//go:build unix

package toolrun

import (
	"net/http"
	"testing"

	"golang.org/x/sys/unix"
)

// TestProxyProcessOwnGroup: the proxy child is not in skillpm's process
// group, so the Ctrl-C a terminal sends that group does not end it while
// the tool (in a group of its own) stops gracefully and may still use the
// network; end of file on its stdin ends it, as when skillpm dies.
func TestProxyProcessOwnGroup(t *testing.T) {
	px, sock, err := childProxy(t, []string{"allowed.test:443"})
	if err != nil {
		t.Fatal(err)
	}
	pid := px.(*proxyChild).cmd.Process.Pid
	pgid, err := unix.Getpgid(pid)
	if err != nil {
		t.Fatal(err)
	}
	own, err := unix.Getpgid(0)
	if err != nil {
		t.Fatal(err)
	}
	if pgid == own {
		t.Fatalf("the proxy child (pid %d) is in this process's group %d", pid, pgid)
	}
	if resp := get(t, sock, "http://blocked.test/"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET through the child proxy: %s, want 403", resp.Status)
	}
	if err := px.Close(); err != nil {
		t.Errorf("Close: %v (want the child's clean exit on end of file)", err)
	}
}
