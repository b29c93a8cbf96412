package indexer

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/index"
	"github.com/skillpm/skillpm/registry"
)

// TestRefreshFailsWhenTheRegistryDoes: a registry that lists its
// catalog and then fails on every repository (here answering 400, as
// one that went down or turned hostile might) fails the refresh with
// ErrNetwork, and the index keeps what it held; Ctrl-C (a cancelled
// context) fails it too. Before, each failure was skipped as "not a
// skill repository": the refresh succeeded, with no skills, and pruned
// every entry of that registry from the index, and a cancelled refresh
// did the same and reported success.
func TestRefreshFailsWhenTheRegistryDoes(t *testing.T) {
	cancelled := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v2/":
		case r.URL.Path == "/v2/_catalog":
			w.Write([]byte(`{"repositories":["org/skills/a","org/skills/b","org/skills/c"]}`))
		default:
			select {
			case cancelled <- struct{}{}:
			default:
			}
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	prefix, err := registry.ParseReference(host + "/org/skills")
	if err != nil {
		t.Fatal(err)
	}
	client := registry.NewClient(registry.Options{PlainHTTPHosts: []string{host}})
	path := filepath.Join(t.TempDir(), index.FileName)
	seed := index.Entry{Repository: host + "/org/skills/a", Name: "a", Version: "1.0.0", Description: "seeded entry", IndexedAt: time.Now().UTC()}
	if err := index.PutCatalog(path, []index.Entry{seed}, nil, time.Second); err != nil {
		t.Fatal(err)
	}
	kept := func() bool {
		hits, err := index.Search(path, "seeded", 10)
		return err == nil && len(hits) == 1
	}

	_, err = Refresh(context.Background(), client, Options{Registries: []Registry{{Prefix: prefix}}, Path: path})
	if !errors.Is(err, registry.ErrNetwork) || !strings.Contains(err.Error(), host) {
		t.Errorf("Refresh: %v; want ErrNetwork naming %s", err, host)
	}
	if !kept() {
		t.Error("the failed refresh dropped the registry's entries from the index")
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-cancelled; cancel() }()
	for len(cancelled) > 0 {
		<-cancelled
	}
	_, err = Refresh(ctx, client, Options{Registries: []Registry{{Prefix: prefix}}, Path: path})
	if !errors.Is(err, context.Canceled) && !errors.Is(err, registry.ErrNetwork) {
		t.Errorf("cancelled Refresh: %v; want context.Canceled", err)
	}
	if !kept() {
		t.Error("the cancelled refresh dropped the registry's entries from the index")
	}
}
