package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/config"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/verify"
)

// projectPolicy is the absolute path of skills.yaml's policy, or "" when
// p is nil or names none.
func projectPolicy(p *project.Manifest) string {
	if p == nil || p.Policy == "" {
		return ""
	}
	if filepath.IsAbs(p.Policy) {
		return p.Policy
	}
	return filepath.Join(p.Dir(), p.Policy)
}

// requireVerifier is loadVerifier for verify, which has nothing to say
// without a policy: no policy and no --key is a usage error, as it is
// for cosign verify, not a row of unchecked "ok"s.
func requireVerifier(e *env, c *cli.Context, projectPolicy string) (*verify.Verifier, error) {
	v, err := loadVerifier(e, c, projectPolicy)
	if err != nil || v != nil {
		return v, err
	}
	return nil, &usageError{
		msg:  "no trust policy: pass --key or --policy, or set policy: in skills.yaml",
		hint: `see README.md ("Trust"); to check only digests and installed files, use a policy whose rule for "*" says 'require: none'`,
	}
}

// loadVerifier builds the layered trust policy (README.md, "Policy
// layers"): the system config's policy, then --key or --policy when given,
// else the user config's and the project's, each a floor for the next;
// nil when there is none.
func loadVerifier(e *env, c *cli.Context, projectPolicy string) (*verify.Verifier, error) {
	var layers []verify.Layer
	add := func(name, path string) error {
		p, err := verify.ReadPolicy(path)
		if err != nil {
			return &usageError{msg: err.Error(), hint: "see README.md (\"Trust\") for the policy format"}
		}
		layers = append(layers, verify.Layer{Name: name, Policy: p})
		return nil
	}
	sys, err := config.LoadSystem(systemConfigPath())
	if err != nil {
		return nil, err
	}
	if sys.Policy != "" {
		if err := add("system", sys.Policy); err != nil {
			return nil, err
		}
	}
	switch key, path := c.String("key"), c.String("policy"); {
	case key != "":
		abs, err := filepath.Abs(key)
		if err != nil {
			return nil, err
		}
		text := fmt.Sprintf("version: 1\nrules:\n  - prefix: \"*\"\n    keys: [%q]\n", abs)
		p, err := verify.ParsePolicy("--key "+key, []byte(text))
		if err != nil {
			return nil, usageErrorf(c, "%v", err)
		}
		layers = append(layers, verify.Layer{Name: "--key", Policy: p})
	case path != "":
		if err := add("--policy", path); err != nil {
			return nil, err
		}
	default:
		cfg, err := e.userConfig()
		if err != nil {
			return nil, err
		}
		if cfg.Policy != "" {
			if err := add("user", cfg.Policy); err != nil {
				return nil, err
			}
		}
		if projectPolicy != "" {
			if err := add("project", projectPolicy); err != nil {
				return nil, err
			}
		}
	}
	if len(layers) == 0 {
		return nil, nil
	}
	if err := needSigstore(); err != nil {
		return nil, err
	}
	return verify.NewLayeredVerifier(layers, verify.Options{Sigstore: e.sigstore()})
}
