package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

func loginCommand(e *command.Env) *cli.Command {
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
		}, command.RegistryFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return command.UsageErrorf(c, "login takes one registry host")
			}
			o := loginOptions{host: c.Args().First(), user: c.String("username")}
			var err error
			if o.password, err = readPassword(e, c.Bool("password-stdin"), o.user); err != nil {
				return command.UsageErrorf(c, "%v", err)
			}
			if o.registry, err = command.ReadRegistryOptions(c); err != nil {
				return err
			}
			client, err := registryClient(e, o.registry)
			if err != nil {
				return err
			}
			if err := client.Login(c.Context, o.host, o.user, o.password); err != nil {
				return err
			}
			e.Logf("Login succeeded")
			return nil
		},
	}
}

// loginOptions are login's flags and argument.
type loginOptions struct {
	host     string                  // the registry host
	user     string                  // -u; "" when the password is an identity token
	password string                  // from stdin or the terminal, never printed
	registry command.RegistryOptions // the registry flags
}

func logoutCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:      "logout",
		Usage:     "remove a registry's stored credentials",
		UsageText: "skillpm logout REGISTRY",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return command.UsageErrorf(c, "logout takes one registry host")
			}
			// logout has no registry flags: the zero options, the user
			// config's.
			client, err := registryClient(e, command.RegistryOptions{})
			if err != nil {
				return err
			}
			if err := client.Logout(c.Context, c.Args().First()); err != nil {
				return err
			}
			e.Logf("Removed login credentials for %s", c.Args().First())
			return nil
		},
	}
}

// readPassword reads the password from stdin (--password-stdin) or
// prompts for it on a terminal without echo.
func readPassword(e *command.Env, fromStdin bool, user string) (string, error) {
	if fromStdin {
		b, err := io.ReadAll(io.LimitReader(e.Stdin, 1<<20))
		if err != nil {
			return "", err
		}
		p := strings.TrimRight(string(b), "\r\n")
		if p == "" {
			return "", fmt.Errorf("no password on stdin")
		}
		return p, nil
	}
	f, ok := e.Stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", fmt.Errorf("pass the password on stdin with --password-stdin")
	}
	if user == "" {
		return "", fmt.Errorf("pass the username with -u (or a token with --password-stdin)")
	}
	fmt.Fprint(e.Stderr, "Password: ")
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(e.Stderr)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
