package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/skillpm/skillpm/config"
	"github.com/skillpm/skillpm/index"
	"github.com/skillpm/skillpm/internal/httpbound"
	"github.com/skillpm/skillpm/registry"
)

// skillpmHome returns $SKILLPM_HOME, or "" when it is not set.
func skillpmHome() string { return os.Getenv("SKILLPM_HOME") }

// cacheDir is the content-addressed blob cache: $SKILLPM_HOME/cache, else
// the user cache dir's skillpm folder.
func cacheDir() (string, error) {
	if h := skillpmHome(); h != "" {
		return filepath.Join(h, "cache"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: %w (set SKILLPM_HOME)", err)
	}
	return filepath.Join(d, "skillpm"), nil
}

// indexPath is the metadata index: $SKILLPM_HOME/index.db, else index.db
// in the user cache dir's skillpm folder. The index package takes its
// path from here; it reads no environment of its own.
func indexPath() (string, error) {
	if h := skillpmHome(); h != "" {
		return filepath.Join(h, index.FileName), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("index location: %w (set SKILLPM_HOME)", err)
	}
	return filepath.Join(d, "skillpm", index.FileName), nil
}

// userConfigPath is $SKILLPM_HOME/config.yaml, else
// $XDG_CONFIG_HOME/skillpm/config.yaml (os.UserConfigDir).
func userConfigPath() (string, error) {
	if h := skillpmHome(); h != "" {
		return filepath.Join(h, "config.yaml"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "skillpm", "config.yaml"), nil
}

// systemConfigPath is the machine-wide config: $SKILLPM_SYSTEM_CONFIG when
// set (tests, and machines that keep it elsewhere), else
// /etc/skillpm/config.yaml, or %ProgramData%\skillpm\config.yaml on
// Windows.
func systemConfigPath() string {
	if p := os.Getenv("SKILLPM_SYSTEM_CONFIG"); p != "" {
		return p
	}
	if runtime.GOOS == "windows" {
		if pd := os.Getenv("ProgramData"); pd != "" {
			return filepath.Join(pd, "skillpm", "config.yaml")
		}
		return ""
	}
	return "/etc/skillpm/config.yaml"
}

// userConfig returns the user config, read once per process: every
// command that needs a part of it gets it from here. A config that exists
// but cannot be used is an error, never "no config": that would fail open.
func (e *env) userConfig() (*config.User, error) {
	if e.config != nil || e.configErr != nil {
		return e.config, e.configErr
	}
	p, err := userConfigPath()
	if err != nil {
		// No config folder at all, so no config.
		e.config = &config.User{}
		return e.config, nil
	}
	e.config, e.configErr = config.Load(p)
	return e.config, e.configErr
}

// registryFlags are shared by every command that talks to a registry.
func registryFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "plain-http", Usage: "talk to the registry over plain HTTP (loopback registries; also plain_http in config.yaml)"},
		&cli.DurationFlag{Name: "connect-timeout", Usage: "give up connecting to a registry after `DURATION` (default 10s; timeouts.connect in config.yaml)"},
		&cli.DurationFlag{Name: "response-timeout", Usage: "give up on a registry that sends no response for `DURATION` after a request (default 30s; timeouts.response_header)"},
		&cli.DurationFlag{Name: "stall-timeout", Usage: "give up on a download that receives less than 1 KiB in `DURATION` (default 30s; timeouts.stall)"},
	}
}

// timeouts are the user config's, overridden by the flags that are set.
func timeouts(c *cli.Context, cfg config.Timeouts) (httpbound.Timeouts, error) {
	t := httpbound.Timeouts{Connect: cfg.Connect, ResponseHeader: cfg.ResponseHeader, Stall: cfg.Stall}
	for _, f := range []struct {
		name string
		v    *time.Duration
	}{{"connect-timeout", &t.Connect}, {"response-timeout", &t.ResponseHeader}, {"stall-timeout", &t.Stall}} {
		if c.IsSet(f.name) {
			if *f.v = c.Duration(f.name); *f.v <= 0 {
				return t, usageErrorf(c, "--%s must be a positive duration (like 30s)", f.name)
			}
		}
	}
	return t, nil
}

// newRegistryClient builds the registry client the command line asks for:
// docker's credential store (DOCKER_CONFIG, credential helpers), the
// blob cache, plain-HTTP hosts from the flag and the user config, and
// request logs with --debug (never credentials).
func newRegistryClient(e *env, c *cli.Context) (*registry.Client, error) {
	cfg, err := e.userConfig()
	if err != nil {
		return nil, err
	}
	tos, err := timeouts(c, cfg.Timeouts)
	if err != nil {
		return nil, err
	}
	opts := registry.Options{
		PlainHTTP:      c.Bool("plain-http"),
		PlainHTTPHosts: cfg.PlainHTTP,
		UserAgent:      "skillpm/" + version,
		Limits: registry.Limits{
			MaxFiles:        cfg.Limits.MaxFiles,
			MaxBytes:        cfg.Limits.MaxBytes,
			MaxFileSize:     cfg.Limits.MaxFileSize,
			MaxBlobSize:     cfg.Limits.MaxBlobSize,
			MaxManifestSize: cfg.Limits.MaxManifestSize,
			MaxPages:        cfg.Limits.MaxPages,
			MaxListItems:    cfg.Limits.MaxListItems,
		},
		Timeouts: tos,
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

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// createdTime is org.opencontainers.image.created for pack and publish:
// SOURCE_DATE_EPOCH when set, else the zero time (registry.DefaultCreated).
func createdTime() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a number of seconds", s)
	}
	return time.Unix(n, 0).UTC(), nil
}

// parseRef parses a reference argument, as a usage error when malformed.
func parseRef(c *cli.Context, s string) (registry.Reference, error) {
	r, err := registry.ParseReference(s)
	if err != nil {
		return r, usageErrorf(c, "%v", err)
	}
	return r, nil
}
