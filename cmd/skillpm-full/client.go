package main

import (
	"fmt"

	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/skillpm/skillpm/registry"
)

// registryClient builds the registry client ro and the user config ask
// for: docker's credential store (DOCKER_CONFIG, credential helpers), the
// blob cache, plain-HTTP hosts from the flag and the user config, the
// user config's limits and timeouts (those ro sets win), and request logs
// with --debug (never credentials).
func registryClient(e *env, ro registryOptions) (*registry.Client, error) {
	cfg, err := e.userConfig()
	if err != nil {
		return nil, err
	}
	opts := registry.Options{
		PlainHTTP:      ro.plainHTTP,
		PlainHTTPHosts: cfg.PlainHTTP,
		UserAgent:      "skillpm/" + version,
		Limits:         registryLimits(cfg),
		Timeouts:       ro.over(cfg.Timeouts),
	}
	opts.Mirrors = cfg.Mirrors
	store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{AllowPlaintextPut: true, DetectDefaultNativeStore: true})
	if err != nil {
		e.debugf("docker credential store unavailable: %v", err)
	} else {
		opts.Credentials = store
	}
	dir, err := cacheDir()
	if err != nil {
		return nil, err
	}
	if opts.Cache, err = registry.OpenCache(dir); err != nil {
		return nil, err
	}
	if e.debug {
		opts.Logf = e.debugf
	}
	if e.stderrTTY && !e.quiet && !e.json {
		opts.Progress = e.progress
	}
	return registry.NewClient(opts), nil
}

// progress draws one updating line per download on a terminal.
func (e *env) progress(p registry.Progress) {
	short := p.Digest
	if len(short) > 19 {
		short = short[:19]
	}
	if p.Final {
		fmt.Fprintf(e.stderr, "\r\x1b[K")
		return
	}
	fmt.Fprintf(e.stderr, "\r\x1b[Kdownloading %s %s / %s", short, humanBytes(p.Done), humanBytes(p.Total))
}
