package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/urfave/cli/v2"
)

// askSkills asks, on the terminal, which of the skills a source holds to
// add: a numbered list on stderr, and one line read from stdin holding
// numbers or names (separated by spaces or commas), or "all". An empty
// answer, or end of input, adds nothing (exit 2).
func askSkills(c *cli.Context, e *command.Env, where string, names, listing []string) ([]string, error) {
	e.ConfirmMu.Lock()
	defer e.ConfirmMu.Unlock()
	fmt.Fprintf(e.Stderr, "%s holds %d skills:\n", command.TermText(where), len(names))
	for i, l := range listing {
		if i < len(names) {
			fmt.Fprintf(e.Stderr, "  %2d) %s\n", i+1, command.TermText(l))
		}
	}
	fmt.Fprint(e.Stderr, "Add which? (numbers or names, or all; empty to cancel) ")
	line, err := command.ReadAnswer(e.Stdin)
	if err != nil && line == "" {
		fmt.Fprintln(e.Stderr)
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return nil, command.UsageErrorf(c, "no skill picked from %s; pick with --skill NAME (repeatable) or --all", where)
	}
	return parsePick(c, line, where, names)
}

// parsePick reads an answer to askSkills: numbers (1-based) or names,
// separated by spaces or commas, or "all"; each skill once, in the order
// given.
func parsePick(c *cli.Context, line, where string, names []string) ([]string, error) {
	if strings.EqualFold(line, "all") {
		return names, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		name := f
		if n, err := strconv.Atoi(f); err == nil {
			if n < 1 || n > len(names) {
				return nil, command.UsageErrorf(c, "%d is not one of the %d skills of %s", n, len(names), where)
			}
			name = names[n-1]
		} else if !contains(names, f) {
			return nil, command.UsageErrorf(c, "%s has no skill %q; answer with its number or name", where, command.TermText(f))
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
