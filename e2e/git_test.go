package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Git servers and repositories for the sources scripts: real git daemon
// (git://) and real smart HTTP (git http-backend behind net/http/cgi),
// started on loopback by the script and stopped when it ends.

type gitServersKey struct{}

type gitServer struct {
	stop func()
}

func gitServers(ts *testscript.TestScript) *sync.Map {
	m, _ := ts.Value(gitServersKey{}).(*sync.Map)
	if m == nil {
		ts.Fatalf("git servers not set up")
	}
	return m
}

// gitEnv makes commits reproducible and independent of the user's setup.
func gitEnv(ts *testscript.TestScript) []string {
	return []string{
		"HOME=" + ts.Getenv("HOME"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
		"PATH=" + os.Getenv("PATH"),
	}
}

func runGit(ts *testscript.TestScript, dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(ts)
	out, err := cmd.CombinedOutput()
	if err != nil {
		ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// cmdGitRepo builds repositories:
//
//	gitrepo init DIR [SKILL...]   a repository on branch main with
//	                              skills/SKILL/SKILL.md each, committed
//	gitrepo commit DIR MSG        commit everything in DIR
//	gitrepo tag DIR TAG...        tag HEAD (moving a tag that exists)
//	gitrepo reset DIR REV         force the branch back to REV and drop
//	                              everything unreachable (a force-push)
func cmdGitRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: gitrepo init|commit|tag|reset DIR ...")
	}
	dir := ts.MkAbs(args[1])
	switch args[0] {
	case "init":
		if err := os.MkdirAll(dir, 0o755); err != nil {
			ts.Fatalf("%v", err)
		}
		runGit(ts, dir, "init", "-q", "-b", "main")
		for _, n := range args[2:] {
			d := filepath.Join(dir, "skills", n)
			if err := os.MkdirAll(d, 0o755); err != nil {
				ts.Fatalf("%v", err)
			}
			body := fmt.Sprintf("---\nname: %s\ndescription: The %s skill, served from git for the e2e tests.\n---\n# %s\n\nUse it when the task needs %s.\n", n, n, n, n)
			if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte(body), 0o644); err != nil {
				ts.Fatalf("%v", err)
			}
		}
		runGit(ts, dir, "add", "-A")
		runGit(ts, dir, "commit", "-q", "--allow-empty", "-m", "skills")
	case "commit":
		if len(args) != 3 {
			ts.Fatalf("usage: gitrepo commit DIR MSG")
		}
		runGit(ts, dir, "add", "-A")
		runGit(ts, dir, "commit", "-q", "-m", args[2])
	case "tag":
		for _, t := range args[2:] {
			runGit(ts, dir, "tag", "-f", t)
		}
	case "reset":
		if len(args) != 3 {
			ts.Fatalf("usage: gitrepo reset DIR REV")
		}
		runGit(ts, dir, "reset", "-q", "--hard", args[2])
		runGit(ts, dir, "reflog", "expire", "--expire=now", "--all")
		runGit(ts, dir, "gc", "-q", "--prune=now")
	default:
		ts.Fatalf("gitrepo: unknown subcommand %q", args[0])
	}
}

// cmdGitServe serves the repositories under ROOT:
//
//	gitserve daemon NAME ROOT            git daemon; $NAME is git://127.0.0.1:PORT
//	gitserve http NAME ROOT [--auth U:P] git http-backend; $NAME is http://127.0.0.1:PORT
//	gitserve stop NAME
func cmdGitServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: gitserve daemon|http|stop NAME [ROOT] [--auth USER:PASS]")
	}
	servers := gitServers(ts)
	name := args[1]
	if args[0] == "stop" {
		if s, ok := servers.LoadAndDelete(name); ok {
			s.(*gitServer).stop()
			return
		}
		ts.Fatalf("gitserve: no server %s", name)
	}
	if len(args) < 3 {
		ts.Fatalf("usage: gitserve %s NAME ROOT", args[0])
	}
	root := ts.MkAbs(args[2])
	var srv *gitServer
	var addr string
	switch args[0] {
	case "daemon":
		srv, addr = startDaemon(ts, root)
		ts.Setenv(name, "git://"+addr)
	case "http":
		var user, pass string
		if len(args) == 5 && args[3] == "--auth" {
			user, pass, _ = strings.Cut(args[4], ":")
		}
		srv, addr = startHTTPBackend(ts, root, user, pass)
		ts.Setenv(name, "http://"+addr)
	default:
		ts.Fatalf("gitserve: unknown subcommand %q", args[0])
	}
	servers.Store(name, srv)
	ts.Defer(func() {
		if s, ok := servers.LoadAndDelete(name); ok {
			s.(*gitServer).stop()
		}
	})
}

func startDaemon(ts *testscript.TestScript, root string) (*gitServer, string) {
	for range 5 {
		addr, err := freeAddr()
		if err != nil {
			ts.Fatalf("%v", err)
		}
		_, port, _ := net.SplitHostPort(addr)
		cmd := exec.Command("git", "daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1", "--port="+port, "--base-path="+root, root)
		cmd.Env = gitEnv(ts)
		setDeathSignal(cmd)
		if err := cmd.Start(); err != nil {
			ts.Fatalf("git daemon: %v", err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		stop := func() { cmd.Process.Kill(); <-done }
		if waitListening(addr, done) {
			return &gitServer{stop: stop}, addr
		}
		stop()
	}
	ts.Fatalf("git daemon did not start")
	return nil, ""
}

func waitListening(addr string, done <-chan struct{}) bool {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return false
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func startHTTPBackend(ts *testscript.TestScript, root, user, pass string) (*gitServer, string) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		ts.Fatalf("%v", err)
	}
	h := &cgi.Handler{
		Path: gitPath,
		Args: []string{"http-backend"},
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + root},
	}
	var handler http.Handler = h
	if user != "" {
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="e2e"`)
				http.Error(w, "authentication required", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ts.Fatalf("%v", err)
	}
	s := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go s.Serve(l)
	return &gitServer{stop: func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	}}, l.Addr().String()
}

// cmdGitCred stores credentials for URL in the git credential store of
// the script's HOME, and configures that helper globally, as a user's
// own git setup would:
//
//	gitcred URL USER PASS
func cmdGitCred(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: gitcred URL USER PASS")
	}
	home := ts.Getenv("HOME")
	u := strings.Replace(args[0], "://", "://"+args[1]+":"+args[2]+"@", 1)
	if err := os.WriteFile(filepath.Join(home, ".git-credentials"), []byte(u+"\n"), 0o600); err != nil {
		ts.Fatalf("%v", err)
	}
	runGit(ts, home, "config", "--global", "credential.helper", "store")
}
