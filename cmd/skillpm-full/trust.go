package main

import (
	"errors"
	"path/filepath"

	"github.com/skillpm/skillpm/internal/command"

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

// trustOptions are verify's trust flags; the zero value reads the
// policies from the configs and skills.yaml.
type trustOptions struct {
	key    string // --key: trust this public key file for every repository
	policy string // --policy: this policy file in place of the user's and the project's
}

// readTrustOptions reads --key and --policy.
func readTrustOptions(c *cli.Context) trustOptions {
	return trustOptions{key: c.String("key"), policy: c.String("policy")}
}

// requireVerifier is loadVerifier for verify, which has nothing to say
// without a policy: no policy and no --key is a usage error, as it is
// for cosign verify, not a row of unchecked "ok"s.
func requireVerifier(e *command.Env, t trustOptions, projectPolicy string) (*verify.Verifier, error) {
	v, err := loadVerifier(e, t, projectPolicy)
	if err != nil || v != nil {
		return v, err
	}
	return nil, &command.UsageError{Msg: "no trust policy: pass --key or --policy, or set policy: in skills.yaml",
		Hint: `see README.md ("Trust"); to check only digests and installed files, use a policy whose rule for "*" says 'require: none'`,
	}
}

// loadVerifier builds the layered trust policy (README.md, "Policy
// layers"): the system config's policy, then --key or --policy when given,
// else the user config's and the project's, each a floor for the next;
// nil when there is none.
func loadVerifier(e *command.Env, t trustOptions, projectPolicy string) (*verify.Verifier, error) {
	sys, err := config.LoadSystem(command.SystemConfigPath())
	if err != nil {
		return nil, err
	}
	src := verify.PolicySources{System: sys.Policy, Key: t.key, Policy: t.policy}
	if src.Key == "" && src.Policy == "" {
		cfg, err := e.UserConfig()
		if err != nil {
			return nil, err
		}
		src.User, src.Project = cfg.Policy, projectPolicy
	}
	layers, err := verify.ReadLayers(src)
	var pe *verify.LayerError
	switch {
	case errors.As(err, &pe) && pe.Layer == "--key":
		return nil, &command.UsageError{Msg: pe.Err.Error(), Hint: "see 'skillpm verify --help'"} // only verify takes --key
	case errors.As(err, &pe):
		return nil, &command.UsageError{Msg: pe.Err.Error(), Hint: "see README.md (\"Trust\") for the policy format"}
	case err != nil:
		return nil, err
	}
	if len(layers) == 0 {
		return nil, nil
	}
	if err := needSigstore(); err != nil {
		return nil, err
	}
	return verify.NewLayeredVerifier(layers, verify.Options{Sigstore: sigstoreBackend(e)})
}
