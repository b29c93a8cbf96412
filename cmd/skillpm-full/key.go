package main

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/verify"
)

func keyCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "key",
		Usage: "manage signing keys",
		Subcommands: []*cli.Command{{
			Name:  "generate",
			Usage: "write an ECDSA P-256 key pair for 'skillpm sign --key'",
			UsageText: `skillpm key generate [options]

Writes PREFIX.key (the private key, encrypted with a passphrase, in cosign's
"ENCRYPTED SIGSTORE PRIVATE KEY" format, mode 0600) and PREFIX.pub (the public
key, to list under keys: in a trust policy). The passphrase is read from
SKILLPM_KEY_PASSWORD, else asked for twice on the terminal.

Examples:
  skillpm key generate
  SKILLPM_KEY_PASSWORD=... skillpm key generate --output-prefix release`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "output-prefix", Value: "skillpm", Usage: "write `PREFIX`.key and PREFIX.pub"},
				&cli.BoolFlag{Name: "force", Usage: "overwrite existing key files"},
			},
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return command.UsageErrorf(c, "key generate takes no arguments")
				}
				o := keyGenOptions{prefix: c.String("output-prefix"), force: c.Bool("force")}
				priv, pub, err := generateKey(e, o)
				if err != nil {
					return err
				}
				if e.JSON {
					return command.WriteJSON(e.Stdout, map[string]string{"privateKey": priv, "publicKey": pub})
				}
				if !e.Quiet {
					fmt.Fprintf(e.Stdout, "private key written to %s\npublic key written to %s\n", priv, pub)
				}
				return nil
			},
		}},
	}
}

// keyGenOptions are key generate's flags.
type keyGenOptions struct {
	prefix string // --output-prefix: writes PREFIX.key and PREFIX.pub
	force  bool   // --force overwrites them; false refuses existing files
}

// generateKey writes a new key pair where o says, with a passphrase from
// the environment or the terminal, and returns the two files' paths.
func generateKey(e *command.Env, o keyGenOptions) (priv, pub string, err error) {
	priv, pub = o.prefix+".key", o.prefix+".pub"
	if !o.force {
		for _, p := range []string{priv, pub} {
			if _, err := os.Stat(p); err == nil {
				return "", "", &command.UsageError{Msg: p + " exists", Hint: "pass --force to overwrite it, or --output-prefix to write elsewhere"}
			}
		}
	}
	pass, err := passphrase(e, true)
	if err != nil {
		return "", "", err
	}
	privPEM, pubPEM, err := verify.GenerateKey(pass)
	if err != nil {
		return "", "", err
	}
	if err := writeKeyFile(priv, privPEM, 0o600); err != nil {
		return "", "", err
	}
	if err := writeKeyFile(pub, pubPEM, 0o644); err != nil {
		return "", "", err
	}
	return priv, pub, nil
}

func writeKeyFile(path string, data []byte, perm fs.FileMode) error {
	if err := os.WriteFile(path, data, perm); err != nil {
		return err
	}
	return os.Chmod(path, perm)
}
