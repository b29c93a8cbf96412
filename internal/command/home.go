package command

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/skillpm/skillpm/config"
	"github.com/skillpm/skillpm/index"
)

// skillpmHome returns $SKILLPM_HOME, or "" when it is not set.
func skillpmHome() string { return os.Getenv("SKILLPM_HOME") }

// EnvRegistry returns $SKILLPM_REGISTRY, the registry prefix for skills
// when skills.yaml names none, or "" when it is not set.
func EnvRegistry() string { return os.Getenv("SKILLPM_REGISTRY") }

// CacheDir is the content-addressed blob cache: $SKILLPM_HOME/cache, else
// the user cache dir's skillpm folder.
func CacheDir() (string, error) {
	if h := skillpmHome(); h != "" {
		return filepath.Join(h, "cache"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: %w (set SKILLPM_HOME)", err)
	}
	return filepath.Join(d, "skillpm"), nil
}

// IndexPath is the metadata index: $SKILLPM_HOME/index.db, else index.db
// in the user cache dir's skillpm folder. The index package takes its
// path from here; it reads no environment of its own.
func IndexPath() (string, error) {
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

// SystemConfigPath is the machine-wide config: $SKILLPM_SYSTEM_CONFIG when
// set (tests, and machines that keep it elsewhere), else
// /etc/skillpm/config.yaml, or %ProgramData%\skillpm\config.yaml on
// Windows.
func SystemConfigPath() string {
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

// UserConfig returns the user config, read once per process: every
// command that needs a part of it gets it from here. A config that exists
// but cannot be used is an error, never "no config": that would fail open.
func (e *Env) UserConfig() (*config.User, error) {
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
