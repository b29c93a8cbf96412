package main

import (
	"fmt"

	"github.com/skillpm/skillpm/config"
	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/internal/httpbound"

	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/skillpm/skillpm/registry"
)

// registryClient builds the registry client ro and the user config ask
// for: docker's credential store (DOCKER_CONFIG, credential helpers), the
// blob cache, plain-HTTP hosts from the flag and the user config, the
// user config's limits and timeouts (those ro sets win), and request logs
// with --debug (never credentials).
func registryClient(e *command.Env, ro command.RegistryOptions) (*registry.Client, error) {
	cfg, err := e.UserConfig()
	if err != nil {
		return nil, err
	}
	opts := registry.Options{
		PlainHTTP:      ro.PlainHTTP,
		PlainHTTPHosts: cfg.PlainHTTP,
		UserAgent:      "skillpm/" + command.Version,
		Limits:         registryLimits(cfg),
		Timeouts:       httpTimeouts(ro.Over(cfg.Timeouts)),
	}
	opts.Mirrors = cfg.Mirrors
	store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{AllowPlaintextPut: true, DetectDefaultNativeStore: true})
	if err != nil {
		e.Debugf("docker credential store unavailable: %v", err)
	} else {
		opts.Credentials = store
	}
	dir, err := command.CacheDir()
	if err != nil {
		return nil, err
	}
	if opts.Cache, err = registry.OpenCache(dir); err != nil {
		return nil, err
	}
	if e.Debug {
		opts.Logf = e.Debugf
	}
	if e.StderrTTY && !e.Quiet && !e.JSON {
		opts.Progress = func(p registry.Progress) { progress(e, p) }
	}
	return registry.NewClient(opts), nil
}

// progress draws one updating line per download on a terminal.
func progress(e *command.Env, p registry.Progress) {
	short := p.Digest
	if len(short) > 19 {
		short = short[:19]
	}
	if p.Final {
		fmt.Fprintf(e.Stderr, "\r\x1b[K")
		return
	}
	fmt.Fprintf(e.Stderr, "\r\x1b[Kdownloading %s %s / %s", short, command.HumanBytes(p.Done), command.HumanBytes(p.Total))
}

// httpTimeouts are the HTTP client's timeouts of the merged settings t.
func httpTimeouts(t config.Timeouts) httpbound.Timeouts {
	return httpbound.Timeouts{Connect: t.Connect, ResponseHeader: t.ResponseHeader, Stall: t.Stall}
}
