package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"
	"oras.land/oras-go/v2/registry/remote/credentials"

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

// userConfig is the part of the user config the registry commands read.
type userConfig struct {
	// PlainHTTP lists registry hosts (host:port) spoken to without TLS.
	PlainHTTP []string `yaml:"plain_http"`
	// Limits bound what pulling one skill may unpack.
	Limits struct {
		MaxFiles    int   `yaml:"max_files"`
		MaxBytes    int64 `yaml:"max_bytes"`
		MaxFileSize int64 `yaml:"max_file_size"`
	} `yaml:"limits"`
	// Mirrors redirect reads of upstream prefixes (README: Mirrors).
	Mirrors []registry.Mirror `yaml:"mirrors"`
}

// loadUserConfig reads the user config; a missing file is an empty one.
func loadUserConfig() (*userConfig, error) {
	cfg := &userConfig{}
	return cfg, readUserConfig(cfg)
}

// readUserConfig decodes the user config into v, which names the part of
// it a command reads; a missing file leaves v as it is.
func readUserConfig(v any) error {
	p, err := userConfigPath()
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// registryFlags are shared by every command that talks to a registry.
func registryFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "plain-http", Usage: "talk to the registry over plain HTTP (loopback registries; also plain_http in config.yaml)"},
	}
}

// newRegistryClient builds the registry client the command line asks for:
// docker's credential store (DOCKER_CONFIG, credential helpers), the
// blob cache, plain-HTTP hosts from the flag and the user config, and
// request logs with --debug (never credentials).
func newRegistryClient(e *env, c *cli.Context) (*registry.Client, error) {
	cfg, err := loadUserConfig()
	if err != nil {
		return nil, err
	}
	opts := registry.Options{
		PlainHTTP:      c.Bool("plain-http"),
		PlainHTTPHosts: cfg.PlainHTTP,
		UserAgent:      "skillpm/" + version,
		Limits: registry.Limits{
			MaxFiles:    cfg.Limits.MaxFiles,
			MaxBytes:    cfg.Limits.MaxBytes,
			MaxFileSize: cfg.Limits.MaxFileSize,
		},
	}
	for _, m := range cfg.Mirrors {
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("config.yaml mirrors: %w", err)
		}
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
