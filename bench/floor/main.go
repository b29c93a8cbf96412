// Command floor is the raw floor bench/compare measures skillpm's cold
// install against: it GETs every URL listed in a file (each skill's
// manifest and blobs) over a fixed number of connections and writes each
// blob once, to a file named by its digest. Nothing is checked, unpacked
// or installed: no installer can do less and still have the bytes.
//
//	go run ./bench/floor -urls urls.txt -o DIR [-c 8]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sync/errgroup"
)

func main() {
	list := flag.String("urls", "", "`FILE` with one URL per line (manifests and blobs)")
	out := flag.String("o", "", "`DIR` the blobs are written to")
	conns := flag.Int("c", 8, "connections (and requests in flight)")
	flag.Parse()
	if *list == "" || *out == "" {
		log.Fatal("usage: floor -urls FILE -o DIR [-c N]")
	}
	f, err := os.Open(*list)
	if err != nil {
		log.Fatal(err)
	}
	var urls []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if u := strings.TrimSpace(sc.Text()); u != "" {
			urls = append(urls, u)
		}
	}
	f.Close()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost, t.MaxConnsPerHost = *conns, *conns
	client := &http.Client{Transport: t}
	g := new(errgroup.Group)
	g.SetLimit(*conns)
	for _, u := range urls {
		g.Go(func() error { return get(client, u, *out) })
	}
	if err := g.Wait(); err != nil {
		log.Fatal(err)
	}
}

// get fetches u; a blob's body is written to dir, named by its digest, and
// a manifest's is read and dropped (its digests are already in the list).
func get(client *http.Client, u, dir string) error {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.oci.image.manifest.v1+json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if !strings.Contains(u, "/blobs/") {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	name := strings.ReplaceAll(path.Base(u), ":", "-")
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
