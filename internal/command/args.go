package command

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs moves a command's flags in front of its positional
// arguments. urfave/cli v2 stops reading flags at the first argument, but
// users type "skillpm init x --tool t" as they would with npm or cargo.
// Everything after a literal "--" stays positional.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 || args[len(args)-1] == "--generate-bash-completion" {
		return args
	}
	out := []string{args[0]}
	i := 1
	flags := app.Flags
	cmds := app.Commands
	// Global flags before the command.
	for i < len(args) && isFlag(args[i]) {
		out = append(out, args[i])
		if takesValue(flags, args[i]) && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
		i++
	}
	// The command and subcommand names.
	found := false
	for i < len(args) {
		c := findCommand(cmds, args[i])
		if c == nil {
			break
		}
		found = true
		out = append(out, args[i])
		flags = append(c.Flags, GlobalFlags()...)
		cmds = c.Subcommands
		i++
	}
	if !found {
		return args
	}
	var fl, pos []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !isFlag(a) {
			pos = append(pos, a)
			continue
		}
		fl = append(fl, a)
		if takesValue(flags, a) && i+1 < len(args) {
			i++
			fl = append(fl, args[i])
		}
	}
	out = append(out, fl...)
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}

func isFlag(a string) bool { return len(a) > 1 && a[0] == '-' && a != "--" }

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// takesValue reports whether flag a (written "-x", "--name" or
// "--name=value") consumes the next argument.
func takesValue(flags []cli.Flag, a string) bool {
	name := strings.TrimLeft(a, "-")
	if strings.Contains(name, "=") {
		return false
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}
