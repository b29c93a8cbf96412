package main

import (
	"github.com/skillpm/skillpm/config"
	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/registry"
)

// registryLimits are the user config's limits: as the registry client
// applies them (zero fields take the defaults), and the git, well-known
// and local sources too.
func registryLimits(cfg *config.User) registry.Limits {
	return registry.Limits{
		MaxFiles:        cfg.Limits.MaxFiles,
		MaxBytes:        cfg.Limits.MaxBytes,
		MaxFileSize:     cfg.Limits.MaxFileSize,
		MaxBlobSize:     cfg.Limits.MaxBlobSize,
		MaxManifestSize: cfg.Limits.MaxManifestSize,
		MaxPages:        cfg.Limits.MaxPages,
		MaxListItems:    cfg.Limits.MaxListItems,
	}
}

// packLimits are the limits installs unpack with here (the user config's
// limits:, defaults for the rest): pack and publish refuse a skill over
// them, since no pull or install could unpack it.
func packLimits(e *command.Env) (registry.Limits, error) {
	cfg, err := e.UserConfig()
	if err != nil {
		return registry.Limits{}, err
	}
	return registry.Limits{MaxFiles: cfg.Limits.MaxFiles, MaxBytes: cfg.Limits.MaxBytes, MaxFileSize: cfg.Limits.MaxFileSize}, nil
}
