package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdSkillpmExit runs skillpm and asserts its exact exit code; its stdout
// and stderr are kept for the 'stdout' and 'stderr' commands that follow.
//
//	skillpm-exit CODE [ARGS...]
func cmdSkillpmExit(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: skillpm-exit CODE [ARGS...] (no '!': the code says what is expected)")
	}
	if len(args) < 1 {
		ts.Fatalf("usage: skillpm-exit CODE [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil || want < 0 || want > 255 {
		ts.Fatalf("skillpm-exit: exit code %q is not a number from 0 to 255", args[0])
	}
	got := 0
	if err := ts.Exec("skillpm", args[1:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("skillpm-exit: %v", err)
		}
		got = ee.ExitCode()
		if got < 0 {
			ts.Fatalf("skillpm-exit: skillpm did not exit normally: %v", err)
		}
	}
	if got != want {
		ts.Fatalf("skillpm exited with code %d, want %d", got, want)
	}
}

// acceptManifests is sent by httpget unless the script gives its own
// Accept header: without it, distribution answers 404 for OCI manifests.
var acceptManifests = strings.Join([]string{
	"application/vnd.oci.image.manifest.v1+json",
	"application/vnd.oci.image.index.v1+json",
	"application/vnd.docker.distribution.manifest.v2+json",
	"application/vnd.docker.distribution.manifest.list.v2+json",
	"*/*",
}, ", ")

// cmdHTTPGet fetches a URL (scheme defaults to http://) and succeeds on a
// 2xx status, or on the status given with -status. The body goes to stdout;
// the status line and the response headers, sorted, go to stderr.
// '! httpget URL' expects a status that is not 2xx, or no answer at all.
// -X makes another bodiless request (HEAD, DELETE); an Accept header for
// every manifest type is sent unless -H gives one.
//
//	httpget [-H 'Name: value']... [-u USER:PASS] [-X METHOD] [-status CODE] URL
func cmdHTTPGet(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: httpget [-H 'Name: value']... [-u USER:PASS] [-X METHOD] [-status CODE] URL"
	method, wantStatus := http.MethodGet, 0
	var headers [][2]string
	var user, pass string
	for len(args) > 1 {
		switch args[0] {
		case "-H":
			name, value, ok := strings.Cut(args[1], ":")
			if !ok {
				ts.Fatalf("httpget: header %q is not 'Name: value'", args[1])
			}
			headers = append(headers, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
		case "-u":
			var ok bool
			if user, pass, ok = strings.Cut(args[1], ":"); !ok {
				ts.Fatalf("httpget: -u wants USER:PASS")
			}
		case "-X":
			method = strings.ToUpper(args[1])
		case "-status":
			n, err := strconv.Atoi(args[1])
			if err != nil {
				ts.Fatalf("httpget: -status %q is not a number", args[1])
			}
			wantStatus = n
		default:
			ts.Fatalf("%s", usage)
		}
		args = args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("%s", usage)
	}
	if neg && wantStatus != 0 {
		ts.Fatalf("httpget: use either '!' or -status, not both")
	}
	url := args[0]
	if !strings.Contains(url, "://") {
		url = "http://" + url
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	ts.Check(err)
	req.Header.Set("Accept", acceptManifests)
	for _, h := range headers {
		req.Header.Set(h[0], h[1])
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if neg {
			fmt.Fprintf(ts.Stderr(), "%v\n", err)
			return
		}
		ts.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	ts.Check(err)

	fmt.Fprintf(ts.Stderr(), "%s %s\n", resp.Proto, resp.Status)
	names := make([]string, 0, len(resp.Header))
	for name := range resp.Header {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range resp.Header[name] {
			fmt.Fprintf(ts.Stderr(), "%s: %s\n", name, v)
		}
	}
	ts.Stdout().Write(body)

	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	switch {
	case wantStatus != 0 && resp.StatusCode != wantStatus:
		ts.Fatalf("%s %s: status %d, want %d", method, url, resp.StatusCode, wantStatus)
	case wantStatus == 0 && ok && neg:
		ts.Fatalf("%s %s: status %d, want a failure", method, url, resp.StatusCode)
	case wantStatus == 0 && !ok && !neg:
		ts.Fatalf("%s %s: status %d", method, url, resp.StatusCode)
	}
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// cmdRegistry starts or stops an extra registry of the script's kind, for
// scripts that need a second registry (mirroring, copying) or one that
// requires credentials. 'start' sets $NAME to the new registry's host:port;
// it is stopped when the script ends, and its log is shown if it failed.
//
//	registry start NAME [--auth USER:PASS]
//	registry stop NAME
func cmdRegistry(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: registry start NAME [--auth USER:PASS] | registry stop NAME"
	if neg {
		ts.Fatalf("registry does not support '!'")
	}
	se, _ := ts.Value(scriptEnvKey{}).(*scriptEnv)
	if se == nil {
		ts.Fatalf("registry: no script environment (Setup did not run)")
	}
	if se.bin == "" {
		ts.Fatalf("registry: %v", errNoRegistry)
	}
	if len(args) < 2 || !envName.MatchString(args[1]) {
		ts.Fatalf("%s", usage)
	}
	name := args[1]
	switch args[0] {
	case "start":
		var opts serverOptions
		switch rest := args[2:]; {
		case len(rest) == 0:
		case len(rest) == 2 && rest[0] == "--auth":
			var ok bool
			if opts.user, opts.pass, ok = strings.Cut(rest[1], ":"); !ok || opts.user == "" {
				ts.Fatalf("registry: --auth wants USER:PASS")
			}
		default:
			ts.Fatalf("%s", usage)
		}
		if se.extras[name] != nil {
			ts.Fatalf("registry %s is already running", name)
		}
		s, err := startTestServer(se.tb, name, se.bin, opts)
		ts.Check(err)
		se.extras[name] = s
		ts.Setenv(name, s.addr)
		ts.Logf("started %s registry %s at %s (log %s)", se.kind.name, name, s.addr, s.logPath)
	case "stop":
		if len(args) != 2 {
			ts.Fatalf("%s", usage)
		}
		s := se.extras[name]
		if s == nil {
			ts.Fatalf("registry %s was not started by this script", name)
		}
		s.stop()
		delete(se.extras, name)
	default:
		ts.Fatalf("%s", usage)
	}
}

// cmdWithFD runs skillpm with FILE open, without close-on-exec, as its
// descriptor N, as a shell or agent host may leave one open to the
// programs it starts; skillpm's stdout and stderr are kept for 'stdout'
// and 'stderr', and a non-zero exit fails unless the command is negated.
//
//	with-fd N FILE ARGS...
func cmdWithFD(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: with-fd N FILE ARGS...")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 3 || n > 64 {
		ts.Fatalf("with-fd: descriptor %q is not a number from 3 to 64", args[0])
	}
	f, err := os.Open(ts.MkAbs(args[1]))
	ts.Check(err)
	defer f.Close()
	cmd := exec.Command(filepath.Join(binDir, "skillpm"), args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = scriptEnviron(ts)
	cmd.ExtraFiles = make([]*os.File, n-2) // descriptors 3..n; the others closed
	cmd.ExtraFiles[n-3] = f
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	ts.Stdout().Write(stdout.Bytes())
	ts.Stderr().Write(stderr.Bytes())
	if (err != nil) != neg {
		ts.Fatalf("with-fd: skillpm %s: %v", strings.Join(args[2:], " "), err)
	}
}
