package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// hostileRegistry is a registry that attacks its client. Under
// /v2/hostile/ it always serves:
//
//	hostile/size0:1.0.0      a skill whose content layer descriptor says 0 bytes
//	hostile/negative:1.0.0   … says -1 bytes
//	hostile/oversize:1.0.0   … says 1 TiB
//	hostile/liar:1.0.0       … says 2000 bytes
//	hostile/loop:1.0.0       a skill whose tag list and referrers link back to themselves
//	hostile/answer400        manifests answered 400, with a message of several lines
//	hostile/metarealm        a bearer challenge whose token realm is the metadata service
//	/v2/_catalog             a catalog that links back to itself
//
// Every content layer's body is endless. Everything else is forwarded
// to the --to registry (if any) while the mode is "forward"; in the
// other modes every request is answered badly: "silent" accepts and
// never answers, "drip-headers" sends the response head a byte every
// 200ms, "drip-body" sends good headers and then a byte every 200ms.
type hostileRegistry struct {
	mode      atomic.Value // string
	requests  atomic.Int64
	blobBytes atomic.Int64
	proxy     http.Handler
	srv       *http.Server
	done      chan struct{}
	closeOnce sync.Once
}

var hostileCases = map[string]int64{"size0": 0, "negative": -1, "oversize": 1 << 40, "liar": 2000, "loop": 2000}

const hostileLayerDigest = "sha256:" + "a3f1c2b4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80"

func hostileConfig(name string) []byte {
	return []byte(`{"schemaVersion":"0.1.0","name":"` + name + `","version":"1.0.0","description":"A hostile skill."}`)
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func hostileManifest(name string) []byte {
	cfg := hostileConfig(name)
	m := map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"artifactType":  "application/vnd.agentskills.skill.v1",
		"config":        map[string]any{"mediaType": "application/vnd.agentskills.skill.config.v1+json", "digest": sha(cfg), "size": len(cfg)},
		"layers": []map[string]any{{
			"mediaType": "application/vnd.agentskills.skill.content.v1.tar+gzip",
			"digest":    hostileLayerDigest,
			"size":      hostileCases[name],
		}},
	}
	b, _ := json.Marshal(m)
	return b
}

func (h *hostileRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.requests.Add(1)
	switch mode, _ := h.mode.Load().(string); mode {
	case "silent":
		select {
		case <-r.Context().Done():
		case <-h.done:
		}
		return
	case "drip-headers":
		h.drip(w, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
		return
	case "drip-body":
		w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
		w.Header().Set("Content-Length", "100000")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		h.drip(w, "")
		return
	}
	p := r.URL.Path
	if p == "/v2/_catalog" {
		h.loop(w, r, "application/json", `{"repositories":["hostile/loop"]}`)
		return
	}
	rest, ok := strings.CutPrefix(p, "/v2/hostile/")
	if !ok {
		if h.proxy != nil {
			h.proxy.ServeHTTP(w, r)
			return
		}
		if p == "/v2/" {
			w.Write([]byte("{}"))
			return
		}
		http.NotFound(w, r)
		return
	}
	name, rest, _ := strings.Cut(rest, "/")
	switch name {
	case "answer400":
		// An error answer whose message tries to start lines of its own.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"errors":[{"code":"DENIED","message":"nope\nerror: all skills removed\n::error::x"}]}`))
		return
	case "metarealm":
		// A token realm on the cloud metadata service.
		w.Header().Set("WWW-Authenticate", `Bearer realm="http://169.254.169.254/latest/meta-data",service="x"`)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if _, ok := hostileCases[name]; !ok {
		http.NotFound(w, r)
		return
	}
	switch {
	case rest == "tags/list":
		h.loop(w, r, "application/json", `{"name":"hostile/`+name+`","tags":["1.0.0"]}`)
	case strings.HasPrefix(rest, "referrers/"):
		h.loop(w, r, "application/vnd.oci.image.index.v1+json", `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`)
	case strings.HasPrefix(rest, "manifests/"):
		m := hostileManifest(name)
		ref := strings.TrimPrefix(rest, "manifests/")
		if ref != "1.0.0" && ref != sha(m) {
			http.NotFound(w, r)
			return
		}
		serveBytes(w, r, "application/vnd.oci.image.manifest.v1+json", m)
	case rest == "blobs/"+sha(hostileConfig(name)):
		serveBytes(w, r, "application/octet-stream", hostileConfig(name))
	case rest == "blobs/"+hostileLayerDigest:
		// An endless body, no Content-Length.
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(http.StatusOK)
		buf := make([]byte, 32<<10)
		for {
			n, err := w.Write(buf)
			h.blobBytes.Add(int64(n))
			if err != nil {
				return
			}
		}
	default:
		http.NotFound(w, r)
	}
}

func serveBytes(w http.ResponseWriter, r *http.Request, mediaType string, b []byte) {
	w.Header().Set("Content-Type", mediaType)
	w.Header().Set("Docker-Content-Digest", sha(b))
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	if r.Method != http.MethodHead {
		w.Write(b)
	}
}

// loop answers with body and a Link header back to the same page.
func (h *hostileRegistry) loop(w http.ResponseWriter, r *http.Request, mediaType, body string) {
	w.Header().Set("Content-Type", mediaType)
	w.Header().Set("Link", "<"+r.URL.RequestURI()+`>; rel="next"`)
	w.Write([]byte(body))
}

// drip writes head (then 'x's) a byte every 200ms, through the raw
// connection, until the client goes away or the server stops.
func (h *hostileRegistry) drip(w http.ResponseWriter, head string) {
	var out io.Writer = w
	flush := func() {}
	if head != "" {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		out = conn
	} else {
		flush = w.(http.Flusher).Flush
	}
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		b := byte('x')
		if i < len(head) {
			b = head[i]
		}
		if _, err := out.Write([]byte{b}); err != nil {
			return
		}
		flush()
		select {
		case <-t.C:
		case <-h.done:
			return
		}
	}
}

func (h *hostileRegistry) close() {
	h.closeOnce.Do(func() {
		close(h.done)
		h.srv.Close()
	})
}

type hostilesKey struct{}

// cmdHostile starts a hostile registry, switches its mode, or prints
// what it served. 'start' sets $NAME to its host:port.
//
//	hostile start NAME [--to HOST:PORT]
//	hostile mode NAME forward|silent|drip-headers|drip-body
//	hostile stats NAME      # requests=… blob_bytes=… on stdout
func cmdHostile(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: hostile start NAME [--to HOST:PORT] | hostile mode NAME forward|silent|drip-headers|drip-body | hostile stats NAME"
	if neg || len(args) < 2 || !envName.MatchString(args[1]) {
		ts.Fatalf("%s", usage)
	}
	all, _ := ts.Value(hostilesKey{}).(*sync.Map)
	if all == nil {
		ts.Fatalf("hostile: no script environment (Setup did not run)")
	}
	name := args[1]
	get := func() *hostileRegistry {
		v, ok := all.Load(name)
		if !ok {
			ts.Fatalf("hostile registry %s was not started by this script", name)
		}
		return v.(*hostileRegistry)
	}
	switch args[0] {
	case "start":
		h := &hostileRegistry{done: make(chan struct{})}
		h.mode.Store("forward")
		switch rest := args[2:]; {
		case len(rest) == 0:
		case len(rest) == 2 && rest[0] == "--to":
			target, err := url.Parse("http://" + rest[1])
			ts.Check(err)
			rp := httputil.NewSingleHostReverseProxy(target)
			rp.ErrorLog = nil
			h.proxy = rp
		default:
			ts.Fatalf("%s", usage)
		}
		if _, ok := all.Load(name); ok {
			ts.Fatalf("hostile registry %s is already running", name)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		go h.srv.Serve(ln)
		all.Store(name, h)
		ts.Defer(h.close)
		ts.Setenv(name, ln.Addr().String())
	case "mode":
		if len(args) != 3 {
			ts.Fatalf("%s", usage)
		}
		switch args[2] {
		case "forward", "silent", "drip-headers", "drip-body":
			get().mode.Store(args[2])
		default:
			ts.Fatalf("%s", usage)
		}
	case "stats":
		h := get()
		fmt.Fprintf(ts.Stdout(), "requests=%d blob_bytes=%d\n", h.requests.Load(), h.blobBytes.Load())
	default:
		ts.Fatalf("%s", usage)
	}
}
