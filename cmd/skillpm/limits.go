package main

import "github.com/skillpm/skillpm/registry"

// packLimits are the limits installs unpack with here (the user config's
// limits:, defaults for the rest): pack and publish refuse a skill over
// them, since no pull or install could unpack it.
func packLimits(e *env) (registry.Limits, error) {
	cfg, err := e.userConfig()
	if err != nil {
		return registry.Limits{}, err
	}
	return registry.Limits{MaxFiles: cfg.Limits.MaxFiles, MaxBytes: cfg.Limits.MaxBytes, MaxFileSize: cfg.Limits.MaxFileSize}, nil
}
