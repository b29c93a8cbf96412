package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/skillpm/skillpm/toolrun"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// yesFlag is --yes, shared by run, exec, mcp and test.
func yesFlag() cli.Flag {
	return &cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "confirm tools and scripts that ask for confirmation (confirmation.level, safety.require_confirmation_for) without asking"}
}

// maxAnswer bounds the line read as an answer to a confirmation prompt.
const maxAnswer = 256

// confirmFunc returns how gated runs are confirmed: --yes confirms every
// one; `skillpm mcp` without --yes leaves it to the MCP client
// (elicitation); otherwise the user is asked y/N on the terminal, and
// with no terminal the run is refused with the way to confirm it.
func confirmFunc(e *Env, c *cli.Context) func(context.Context, toolrun.ConfirmRequest) (string, error) {
	if c.Bool("yes") {
		return func(context.Context, toolrun.ConfirmRequest) (string, error) { return "--yes", nil }
	}
	if c.Command != nil && c.Command.Name == "mcp" {
		return nil
	}
	cmd := "skillpm " + c.Command.Name
	return func(ctx context.Context, r toolrun.ConfirmRequest) (string, error) {
		if !e.Askable() {
			return "", fmt.Errorf("no terminal to ask on: confirm with %s --yes", cmd)
		}
		e.ConfirmMu.Lock()
		defer e.ConfirmMu.Unlock()
		// The prompt is the skill's: folded onto one line, so that it
		// cannot write a line of its own that names another tool.
		fmt.Fprintf(e.Stderr, "%s\n%s asks for confirmation (%s). Run it? [y/N] ", TermLine(strings.Join(strings.Fields(r.Prompt), " ")), TermLine(r.Subject()), r.Level)
		line, err := ReadAnswer(e.Stdin)
		if err != nil && line == "" {
			fmt.Fprintln(e.Stderr)
			return "", fmt.Errorf("%w: no answer (%v)", toolrun.ErrDeclined, err)
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return "prompt", nil
		}
		return "", toolrun.ErrDeclined
	}
}

// Askable reports whether the user can be asked: stdin and stderr are
// terminals (e.Terminal overrides, for tests).
func (e *Env) Askable() bool {
	if e.Terminal != nil {
		return *e.Terminal
	}
	return IsTerminal(e.Stderr) && isTerminalReader(e.Stdin)
}

// ReadAnswer reads one line, at most maxAnswer bytes, byte by byte so
// that nothing after it is consumed.
func ReadAnswer(r io.Reader) (string, error) {
	var b strings.Builder
	one := make([]byte, 1)
	for b.Len() < maxAnswer {
		n, err := r.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				return b.String(), nil
			}
			b.WriteByte(one[0])
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && b.Len() > 0 {
				return b.String(), nil
			}
			return b.String(), err
		}
	}
	return b.String(), nil
}

// isTerminalReader reports whether r is a terminal.
func isTerminalReader(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
