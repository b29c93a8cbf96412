package registry

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/skillpm/skillpm/registry/internal/regtest"
)

// BenchmarkRegistry100 publishes 100 generated skills (4 KB to 2 MB,
// log-uniform) to a loopback registry, pulls all of them cold and warm,
// and prints both next to two baselines against the same registry: plain
// HTTP GETs of the same manifests and blobs, one at a time and with the
// client's parallelism (the floor for this work). Run it with
//
//	go test ./registry -run '^$' -bench Registry100 -benchtime 9x
//
// (go test runs it once with one round first, so two tables print; the
// second, with nine rounds, is the measurement.)
//
// The pulls write under the user cache folder, as skillpm's cache does
// (SKILLPM_BENCH_DIR=DIR to write elsewhere): a cold pull creates seven
// files and folders per skill (three in the cache, four in the skill),
// so a filesystem where creating one is slow shows in the figures;
// compare with SKILLPM_BENCH_DIR=/dev/shm to see skillpm's own cost. It
// measures what creating an empty file there costs before the first
// round, and prints it with the figures. On ext4
// without a journal that cost depends on history: every new inode steps
// over the inodes its block group freed in the last 60 to 300 seconds
// (recently_deleted in fs/ext4/ialloc.c), so a run just after another
// (whose files were removed at its exit) is slower.
//
// The registry runs in the benchmark's process unless
// SKILLPM_BENCH_REGISTRY names one on loopback (host:port, plain HTTP),
// such as the distribution binary scripts/test builds, with a config.yml
// of
//
//	version: 0.1
//	storage: {inmemory: {}}
//	http: {addr: 127.0.0.1:5000, secret: bench}
//	log: {level: error, accesslog: {disabled: true}}
//
// and started with tracing off (distribution v3 exports traces by
// default, to nothing here):
//
//	OTEL_SDK_DISABLED=true OTEL_TRACES_EXPORTER=none \
//	    ~/.cache/skillpm-tools/bin/registry serve config.yml
//
// or Debian's /usr/bin/docker-registry with the same file. Each run
// publishes into repositories of its own, so a registry can serve
// several runs. The cpu column is the whole process: with the registry
// in it, the registry's CPU too; with one outside, the client's alone.
// Requests and bytes are counted on the client side.
func BenchmarkRegistry100(b *testing.B) {
	host := os.Getenv("SKILLPM_BENCH_REGISTRY")
	if host == "" {
		host = regtest.New(b).Host
	}
	var counter regtest.Counter
	work := benchDir(b)
	run := strconv.FormatUint(rand.Uint64(), 36) // this run's repositories
	const n = 100
	refs := make([]Reference, n)
	var total int64
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		size := int64(4096 * math.Pow(512, rng.Float64())) // 4 KB .. 2 MB
		total += size
		name := fmt.Sprintf("bench-%03d", i)
		dir := writeSkill(b, work, name, "1.0.0", nil)
		writeRandom(b, filepath.Join(dir, "assets", "data.bin"), size, rng)
		refs[i], _ = ParseReference(host + "/bench/" + run + "/" + name + ":1.0.0")
	}
	// Every client counts its requests into counter. The pull clients'
	// base transport is the one NewClient would make. Connections are
	// closed after each phase: every phase starts with none.
	var transports []*http.Transport
	transport := func(idle int) http.RoundTripper {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = idle
		transports = append(transports, t)
		return counter.Transport(t)
	}
	pub := NewClient(Options{PlainHTTPHosts: []string{host}, Transport: transport(8)})
	start := time.Now()
	g := new(errgroup.Group)
	g.SetLimit(pub.Concurrency())
	for i := range n {
		g.Go(func() error {
			p, err := Pack(bg, filepath.Join(work, fmt.Sprintf("bench-%03d", i)), PackOptions{})
			if err != nil {
				return err
			}
			defer p.Close()
			_, err = pub.Publish(bg, p, refs[i].WithTag(""), PublishOptions{})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	publish := time.Since(start)

	// The URLs the baselines fetch: each skill's manifest, config and layer.
	var urls []string
	for _, r := range refs {
		res, err := pub.Resolve(bg, r)
		if err != nil {
			b.Fatal(err)
		}
		base := "http://" + host + "/v2/" + r.Repository
		urls = append(urls, base+"/manifests/"+r.Tag, base+"/blobs/"+res.Layout.Config.Digest.String(), base+"/blobs/"+res.Layout.Layers[0].Digest.String())
	}

	type row struct {
		name      string
		wall, cpu time.Duration // cpu: the whole process
		c         regtest.Counts
	}
	// Every round measures each phase once; the figures printed are the
	// medians over the rounds (-benchtime 9x for nine), so that one
	// scheduling hiccup on a busy machine does not decide the verdict.
	// Each phase starts with the page cache written back: skillpm does
	// not fsync, and the writeback of an earlier phase's files must not
	// land in the next phase's time.
	rounds := map[string][]row{}
	var order []string
	// Each phase carries a pprof label, so that a -cpuprofile can be
	// narrowed to one: go tool pprof -tagfocus 'phase=skillpm pull. cold'
	// (a regexp; pprof would split the value at a comma).
	measure := func(name string, fn func()) {
		for _, t := range transports {
			t.CloseIdleConnections()
		}
		counter.Reset()
		flushDirty()
		start, cpu := time.Now(), cpuTime()
		pprof.Do(context.Background(), pprof.Labels("phase", name), func(context.Context) { fn() })
		if rounds[name] == nil {
			order = append(order, name)
		}
		rounds[name] = append(rounds[name], row{name, time.Since(start), cpuTime() - cpu, counter.Counts()})
	}
	create := fileCreateCost(b)
	for i := range b.N {
		measure("GET one at a time", func() { httpGets(b, transport(1), urls, 1) })
		measure(fmt.Sprintf("GET %d in parallel (floor)", pub.Concurrency()), func() { httpGets(b, transport(pub.Concurrency()), urls, pub.Concurrency()) })
		cache, err := OpenCache(filepath.Join(benchDir(b), "cache"))
		if err != nil {
			b.Fatal(err)
		}
		c := NewClient(Options{PlainHTTPHosts: []string{host}, Cache: cache, Transport: transport(pub.Concurrency())})
		out := benchDir(b)
		pullAll := func(tag string) {
			reqs := make([]PullRequest, n)
			for j, r := range refs {
				reqs[j] = PullRequest{Ref: r, Dst: filepath.Join(out, fmt.Sprint(tag, i), r.Repository)}
			}
			if _, err := c.PullAll(bg, reqs, PullOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		measure("skillpm pull, cold", func() { pullAll("cold") })
		measure("skillpm pull, warm", func() { pullAll("warm") })
	}
	b.StopTimer()
	var rows []row
	for _, name := range order {
		rs := rounds[name]
		sort.Slice(rs, func(i, j int) bool { return rs[i].wall < rs[j].wall })
		rows = append(rows, rs[len(rs)/2])
	}
	fmt.Fprintf(os.Stderr, "\n%d skills, %.1f MB of files; publish took %v; creating an empty file took %v; medians of %d rounds\n",
		n, float64(total)/1e6, publish.Round(time.Millisecond), create.Round(time.Microsecond), b.N)
	fmt.Fprintf(os.Stderr, "%-28s %10s %10s %9s %6s %11s\n", "", "wall", "cpu", "requests", "blobs", "bytes")
	for _, r := range rows {
		fmt.Fprintf(os.Stderr, "%-28s %10v %10v %9d %6d %11d\n", r.name, r.wall.Round(time.Millisecond), r.cpu.Round(time.Millisecond), r.c.Total(), r.c.Blobs, r.c.Bytes)
	}
	floor, cold := rows[1].wall, rows[2].wall
	fmt.Fprintf(os.Stderr, "cold / floor = %.2f (target <= 1.5); cold / one-at-a-time = %.2f (target < 1); warm blob requests = %d (target 0)\n",
		float64(cold)/float64(floor), float64(cold)/float64(rows[0].wall), rows[3].c.Blobs)
	b.ReportMetric(float64(cold)/float64(floor), "cold/floor")
	b.ReportMetric(float64(rows[3].c.Blobs), "warm-blob-requests")
}

// fileCreateCost is the median time to create (and close) an empty file
// in a new folder where the pulls write.
func fileCreateCost(tb testing.TB) time.Duration {
	dir := benchDir(tb)
	times := make([]time.Duration, 200)
	for i := range times {
		start := time.Now()
		f, err := os.Create(filepath.Join(dir, fmt.Sprint(i)))
		if err != nil {
			tb.Fatal(err)
		}
		f.Close()
		times[i] = time.Since(start)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return times[len(times)/2]
}

func writeRandom(tb testing.TB, path string, size int64, rng *rand.Rand) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	buf := make([]byte, size)
	for i := 0; i+8 <= len(buf); i += 8 {
		v := rng.Uint64()
		for j := range 8 {
			buf[i+j] = byte(v >> (8 * j))
		}
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// httpGets fetches urls with parallel plain GETs, discarding bodies.
func httpGets(tb testing.TB, rt http.RoundTripper, urls []string, parallel int) {
	tb.Helper()
	client := &http.Client{Transport: rt}
	var mu sync.Mutex
	var firstErr error
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(parallel)
	for _, u := range urls {
		g.Go(func() error {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			req.Header.Set("Accept", ocispec.MediaTypeImageManifest)
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				return err
			}
			if resp.StatusCode != http.StatusOK {
				mu.Lock()
				firstErr = fmt.Errorf("GET %s: %s", u, resp.Status)
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		tb.Fatal(err)
	}
	if firstErr != nil {
		tb.Fatal(firstErr)
	}
}
