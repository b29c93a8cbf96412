package main

import (
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/urfave/cli/v2"
)

const bashCompletion = `# skillpm bash completion: source <(skillpm completion bash)
_skillpm_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}" opts
  if [[ "$cur" == "-"* ]]; then
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
}
complete -o bashdefault -o default -F _skillpm_complete skillpm
`

const zshCompletion = `#compdef skillpm
# skillpm zsh completion: source <(skillpm completion zsh)
_skillpm() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _skillpm skillpm
`

func completionCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "completion",
		Usage: "print a shell completion script (bash, zsh or fish)",
		UsageText: `skillpm completion bash|zsh|fish

Examples:
  source <(skillpm completion bash)
  skillpm completion fish > ~/.config/fish/completions/skillpm.fish`,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return command.UsageErrorf(c, "completion needs one shell name: bash, zsh or fish")
			}
			switch shell := c.Args().First(); shell {
			case "bash":
				fmt.Fprint(e.Stdout, bashCompletion)
			case "zsh":
				fmt.Fprint(e.Stdout, zshCompletion)
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				fmt.Fprintln(e.Stdout, strings.TrimSpace(s))
			default:
				return command.UsageErrorf(c, "unknown shell %q (want bash, zsh or fish)", shell)
			}
			return nil
		},
	}
}
