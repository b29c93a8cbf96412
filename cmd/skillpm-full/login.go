package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

func loginCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "login",
		Usage: "log in to a registry (stored in docker's credential store)",
		UsageText: `skillpm login [options] REGISTRY

Checks the credentials against REGISTRY and stores them as docker and oras
do: in ~/.docker/config.json (or $DOCKER_CONFIG) or the credential helper
it names. The password is read from stdin with --password-stdin, or asked
for on a terminal; it is never printed or logged.

Examples:
  echo "$TOKEN" | skillpm login ghcr.io -u octocat --password-stdin
  skillpm login --plain-http 127.0.0.1:5000 -u alice`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "username", Aliases: []string{"u"}, Usage: "log in as `USER` (empty: the password is an identity token)"},
			&cli.BoolFlag{Name: "password-stdin", Usage: "read the password or token from stdin"},
		}, registryFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf(c, "login takes one registry host")
			}
			o := loginOptions{host: c.Args().First(), user: c.String("username")}
			var err error
			if o.password, err = readPassword(e, c.Bool("password-stdin"), o.user); err != nil {
				return usageErrorf(c, "%v", err)
			}
			if o.registry, err = readRegistryOptions(c); err != nil {
				return err
			}
			client, err := registryClient(e, o.registry)
			if err != nil {
				return err
			}
			if err := client.Login(c.Context, o.host, o.user, o.password); err != nil {
				return err
			}
			e.logf("Login succeeded")
			return nil
		},
	}
}

// loginOptions are login's flags and argument.
type loginOptions struct {
	host     string          // the registry host
	user     string          // -u; "" when the password is an identity token
	password string          // from stdin or the terminal, never printed
	registry registryOptions // the registry flags
}

func logoutCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "logout",
		Usage:     "remove a registry's stored credentials",
		UsageText: "skillpm logout REGISTRY",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf(c, "logout takes one registry host")
			}
			// logout has no registry flags: the zero options, the user
			// config's.
			client, err := registryClient(e, registryOptions{})
			if err != nil {
				return err
			}
			if err := client.Logout(c.Context, c.Args().First()); err != nil {
				return err
			}
			e.logf("Removed login credentials for %s", c.Args().First())
			return nil
		},
	}
}

// readPassword reads the password from stdin (--password-stdin) or
// prompts for it on a terminal without echo.
func readPassword(e *env, fromStdin bool, user string) (string, error) {
	if fromStdin {
		b, err := io.ReadAll(io.LimitReader(e.stdin, 1<<20))
		if err != nil {
			return "", err
		}
		p := strings.TrimRight(string(b), "\r\n")
		if p == "" {
			return "", fmt.Errorf("no password on stdin")
		}
		return p, nil
	}
	f, ok := e.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", fmt.Errorf("pass the password on stdin with --password-stdin")
	}
	if user == "" {
		return "", fmt.Errorf("pass the username with -u (or a token with --password-stdin)")
	}
	fmt.Fprint(e.stderr, "Password: ")
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(e.stderr)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
