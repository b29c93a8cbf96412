package registry

import (
	"context"
	"errors"
	"fmt"

	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/skillpm/skillpm/registry/ociref"
)

// ErrNoCredentialStore is returned by Login and Logout on a Client
// without Options.Credentials.
var ErrNoCredentialStore = errors.New("no credential store configured")

// Login checks username and password against the registry host and, when
// it accepts them, stores them in the client's credential store (docker's
// config file or its credential helper), as "docker login" and "oras
// login" do.
func (c *Client) Login(ctx context.Context, host, username, password string) error {
	host = ociref.CanonicalHost(host) // as references store it, so the credentials are found
	if c.opts.Credentials == nil {
		return ErrNoCredentialStore
	}
	reg, err := remote.NewRegistry(host)
	if err != nil {
		return fmt.Errorf("login %s: %w", host, err)
	}
	if err := c.checkPlainCredentials(host); err != nil {
		return fmt.Errorf("login %s: %w", host, err)
	}
	reg.PlainHTTP = c.plainHTTP(host)
	client := *c.auth
	client.Cache = auth.NewCache()
	reg.Client = &client
	cred := auth.Credential{Username: username, Password: password}
	if username == "" {
		cred = auth.Credential{RefreshToken: password}
	}
	if err := credentials.Login(ctx, c.opts.Credentials, reg, cred); err != nil {
		// A registry may echo what it was sent.
		return fmt.Errorf("login %s: %w", host, redact(classify(err), password))
	}
	return nil
}

// Logout removes the stored credentials for host.
func (c *Client) Logout(ctx context.Context, host string) error {
	host = ociref.CanonicalHost(host)
	if c.opts.Credentials == nil {
		return ErrNoCredentialStore
	}
	if err := credentials.Logout(ctx, c.opts.Credentials, host); err != nil {
		return fmt.Errorf("logout %s: %w", host, err)
	}
	return nil
}
