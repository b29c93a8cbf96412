package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// wellKnownServer serves a folder on loopback as a well-known origin,
// as it is ("good") or attacking its client:
//
//	wrong-digest     every artifact with a byte appended (the index unchanged)
//	hostile-archive  every .tar.gz replaced by one with a "../" entry, and
//	                 the index's digests rewritten to match it
//	not-json         index.json as an HTML page
//	no-digest        index.json with every digest removed
type wellKnownServer struct {
	dir      string
	mode     atomic.Value // string
	requests atomic.Int64
	srv      *http.Server
}

// hostileTarGz is a skill archive whose second entry leaves the folder.
func hostileTarGz() []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	md := "---\nname: evil\ndescription: An evil skill. Never install it.\n---\n# evil\n"
	tw.WriteHeader(&tar.Header{Name: "SKILL.md", Mode: 0o644, Size: int64(len(md))})
	tw.Write([]byte(md))
	tw.WriteHeader(&tar.Header{Name: "../../escaped", Mode: 0o644, Size: 4})
	tw.Write([]byte("pwn\n"))
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func (w *wellKnownServer) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w.requests.Add(1)
	mode, _ := w.mode.Load().(string)
	p := path.Clean("/" + r.URL.Path)
	data, err := os.ReadFile(filepath.Join(w.dir, filepath.FromSlash(p)))
	if err != nil {
		http.NotFound(rw, r)
		return
	}
	isIndex := strings.HasSuffix(p, "/index.json")
	switch {
	case mode == "wrong-digest" && !isIndex:
		data = append(data, '\n')
	case mode == "hostile-archive" && strings.HasSuffix(p, ".tar.gz"):
		data = hostileTarGz()
	case mode == "hostile-archive" && isIndex:
		data = rewriteIndex(data, func(e map[string]any) {
			if e["type"] == "archive" {
				e["digest"] = sha(hostileTarGz())
			}
		})
	case mode == "not-json" && isIndex:
		data = []byte("<html><body>Welcome to our docs</body></html>\n")
	case mode == "no-digest" && isIndex:
		data = rewriteIndex(data, func(e map[string]any) { delete(e, "digest") })
	}
	if isIndex {
		rw.Header().Set("Content-Type", "application/json")
	}
	rw.Write(data)
}

func rewriteIndex(data []byte, f func(map[string]any)) []byte {
	var idx map[string]any
	if json.Unmarshal(data, &idx) != nil {
		return data
	}
	skills, _ := idx["skills"].([]any)
	for _, s := range skills {
		if e, ok := s.(map[string]any); ok {
			f(e)
		}
	}
	out, _ := json.Marshal(idx)
	return out
}

// cmdWellKnown serves folders as well-known origins and checks exported
// trees.
//
//	wellknown serve NAME DIR   serve DIR; $NAME is its origin (http://127.0.0.1:PORT)
//	wellknown mode NAME good|wrong-digest|hostile-archive|not-json|no-digest
//	wellknown stats NAME       print requests=N
//	wellknown stop NAME        stop serving (the origin is then unreachable)
//	wellknown check DIR        check DIR/.well-known/agent-skills: the 0.2.0
//	                           $schema, every artifact's sha256 digest, SKILL.md
//	                           at every archive's root; one line per skill
func cmdWellKnown(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: wellknown serve NAME DIR | wellknown mode NAME MODE | wellknown stats NAME | wellknown stop NAME | wellknown check DIR"
	if len(args) < 2 {
		ts.Fatalf("%s", usage)
	}
	if args[0] == "check" {
		err := checkWellKnownTree(ts, ts.MkAbs(args[1]))
		if neg {
			if err == nil {
				ts.Fatalf("wellknown check: the tree is valid")
			}
			fmt.Fprintf(ts.Stdout(), "%v\n", err)
			return
		}
		ts.Check(err)
		return
	}
	if neg || !envName.MatchString(args[1]) {
		ts.Fatalf("%s", usage)
	}
	// The servers share the script's map of hostile servers, under
	// "wellknown:NAME".
	all, _ := ts.Value(hostilesKey{}).(*sync.Map)
	if all == nil {
		ts.Fatalf("wellknown: no script environment (Setup did not run)")
	}
	name := args[1]
	get := func() *wellKnownServer {
		v, ok := all.Load("wellknown:" + name)
		if !ok {
			ts.Fatalf("well-known server %s was not started by this script", name)
		}
		return v.(*wellKnownServer)
	}
	switch args[0] {
	case "serve":
		if len(args) != 3 {
			ts.Fatalf("%s", usage)
		}
		w := &wellKnownServer{dir: ts.MkAbs(args[2])}
		w.mode.Store("good")
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		w.srv = &http.Server{Handler: w, ReadHeaderTimeout: 10 * time.Second}
		go w.srv.Serve(ln)
		if _, loaded := all.LoadOrStore("wellknown:"+name, w); loaded {
			ts.Fatalf("well-known server %s is already running", name)
		}
		ts.Defer(func() { w.srv.Close() })
		ts.Setenv(name, "http://"+ln.Addr().String())
	case "mode":
		if len(args) != 3 {
			ts.Fatalf("%s", usage)
		}
		switch args[2] {
		case "good", "wrong-digest", "hostile-archive", "not-json", "no-digest":
			get().mode.Store(args[2])
		default:
			ts.Fatalf("%s", usage)
		}
	case "stats":
		fmt.Fprintf(ts.Stdout(), "requests=%d\n", get().requests.Load())
	case "stop":
		ts.Check(get().srv.Close())
	default:
		ts.Fatalf("%s", usage)
	}
}

// checkWellKnownTree checks an exported tree the way a strict client
// would, independently of skillpm's own reader.
func checkWellKnownTree(ts *testscript.TestScript, root string) error {
	base := filepath.Join(root, ".well-known", "agent-skills")
	data, err := os.ReadFile(filepath.Join(base, "index.json"))
	if err != nil {
		return err
	}
	var idx struct {
		Schema string `json:"$schema"`
		Skills []struct {
			Name, Type, Description, URL, Digest string
		} `json:"skills"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		return fmt.Errorf("index.json: %v", err)
	}
	if idx.Schema != "https://schemas.agentskills.io/discovery/0.2.0/schema.json" {
		return fmt.Errorf("index.json: $schema %q", idx.Schema)
	}
	for _, s := range idx.Skills {
		if strings.Contains(s.URL, "://") || strings.HasPrefix(s.URL, "/") || strings.Contains(s.URL, "..") {
			return fmt.Errorf("%s: url %q is not relative to the index", s.Name, s.URL)
		}
		b, err := os.ReadFile(filepath.Join(base, filepath.FromSlash(s.URL)))
		if err != nil {
			return fmt.Errorf("%s: %v", s.Name, err)
		}
		if got := sha(b); got != s.Digest {
			return fmt.Errorf("%s: %s has digest %s, the index says %s", s.Name, s.URL, got, s.Digest)
		}
		switch s.Type {
		case "skill-md":
			if !strings.HasSuffix(s.URL, "/SKILL.md") || !bytes.HasPrefix(b, []byte("---")) {
				return fmt.Errorf("%s: skill-md %s is not a SKILL.md", s.Name, s.URL)
			}
		case "archive":
			if err := archiveHasSkillMD(b); err != nil {
				return fmt.Errorf("%s: %s: %v", s.Name, s.URL, err)
			}
		default:
			return fmt.Errorf("%s: type %q", s.Name, s.Type)
		}
		fmt.Fprintf(ts.Stdout(), "ok %s %s %s\n", s.Name, s.Type, s.URL)
	}
	return nil
}

func archiveHasSkillMD(b []byte) error {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fmt.Errorf("no SKILL.md at the archive's root")
		}
		if err != nil {
			return err
		}
		if strings.TrimPrefix(h.Name, "./") == "SKILL.md" {
			return nil
		}
	}
}
