//go:build linux

package toolrun

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/sandbox"
)

// TestSandboxUnixSocketOutside: Landlock does not control connect() to a
// pathname unix socket (/var/run/docker.sock would be a way out), so the
// sandbox refuses socket(AF_UNIX) to handlers: one listening outside,
// reachable by path, is refused as PERMISSION_DENIED under every network
// policy (none, the default profile, hosts through the proxy, and "*"),
// while socketpair (which reaches nothing outside) still works.
func TestSandboxUnixSocketOutside(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "outside.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	handlers := []struct{ entry, body string }{
		{"scripts/h.py", fmt.Sprintf("import socket\ndef handler(a):\n    s = socket.socket(socket.AF_UNIX)\n    s.connect(%q)\n    s.close()\n    return {}\n", sock)},
		{"scripts/h.mjs", fmt.Sprintf("import net from 'node:net';\nexport default () => new Promise((ok, no) => { const s = net.connect(%q, () => { s.end(); ok({}); }); s.on('error', no); });\n", sock)},
	}
	for _, h := range handlers {
		for _, perms := range []sandbox.Permissions{
			{},
			universal,
			{Declared: true, Outbound: []string{"example.test"}},
			{Declared: true, Outbound: []string{"*"}},
		} {
			t.Run(filepath.Ext(h.entry)+"/"+strings.Join(perms.Outbound, ","), func(t *testing.T) {
				opts, _ := confined(t, sandbox.Default)
				res, err := runHostile(t, h.entry, h.body, perms, opts, "")
				wantDenied(t, res, err, "connect "+sock)
			})
		}
	}
	select {
	case <-accepted:
		t.Fatal("the unix socket outside accepted a connection from a confined handler")
	default:
	}
	// socketpair stays allowed.
	opts, _ := confined(t, sandbox.Default)
	body := "import socket\ndef handler(a):\n    x, y = socket.socketpair()\n    x.sendall(b'hi')\n    return {'got': y.recv(2).decode()}\n"
	res, err := runHostile(t, "scripts/h.py", body, sandbox.Permissions{}, opts, "")
	if err != nil || !strings.Contains(string(res.Output), `"hi"`) {
		t.Fatalf("socketpair: %s, %v, stderr %q; want it to work", res.Output, err, res.Stderr)
	}
}

// TestSandboxNoCapabilities: a handler holds no capabilities, whatever
// skillpm runs as (these tests run as root in CI), under the default
// profile (no namespaces) and under declared permissions (a user
// namespace), and cannot regain them by executing a program as uid 0.
func TestSandboxNoCapabilities(t *testing.T) {
	body := "#!/bin/bash\ncat >/dev/null\neff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)\nbnd=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/self/status)\necho \"{\\\"eff\\\":\\\"$eff\\\",\\\"bnd\\\":\\\"$bnd\\\"}\"\n"
	allowed := universal
	allowed.AllowSubprocess = true
	for _, perms := range []sandbox.Permissions{{}, allowed} {
		opts, _ := confined(t, sandbox.Default)
		res, err := runHostile(t, "scripts/h.sh", body, perms, opts, "")
		if err != nil {
			t.Fatalf("declared=%v: %v, stderr %q", perms.Declared, err, res.Stderr)
		}
		if want := `"eff":"0000000000000000","bnd":"0000000000000000"`; !strings.Contains(string(res.Output), want) {
			t.Fatalf("declared=%v: %s; want %s", perms.Declared, res.Output, want)
		}
	}
}
