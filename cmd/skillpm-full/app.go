package main

import (
	"context"
	"io"
	"net"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/sandbox/netproxy"
	"github.com/skillpm/skillpm/toolrun"
	"github.com/urfave/cli/v2"
)

// commands lists every command in help order; each lives in its own file.
func commands(e *command.Env) []*cli.Command {
	return []*cli.Command{
		initCommand(e),
		lintCommand(e),
		auditCommand(e),
		packCommand(e),
		publishCommand(e),
		pullCommand(e),
		inspectCommand(e),
		versionsCommand(e),
		signCommand(e),
		verifyCommand(e),
		keyCommand(e),
		addCommand(e),
		importCommand(e),
		removeCommand(e),
		installCommand(e),
		updateCommand(e),
		syncCommand(e),
		exportCommand(e),
		bundleCommand(e),
		outdatedCommand(e),
		whyCommand(e),
		command.ListCommand(e),
		command.StatusCommand(e),
		doctorCommand(e),
		command.SearchCommand(e),
		indexCommand(e),
		loginCommand(e),
		logoutCommand(e),
		agentsCommand(e),
		command.ToolsCommand(e),
		command.RunCommand(e),
		execCommand(e),
		command.PromptCommand(e),
		selectCommand(e),
		testCommand(e),
		mcpCommand(e),
		command.VersionCommand(e),
		completionCommand(e),
	}
}

func newApp(e *command.Env) *cli.App {
	app := command.NewApp(e, commands(e))
	app.UsageText = `skillpm [global options] command [command options] [arguments...]
skillpm --version | -V

Examples:
  skillpm add pdf-tools               # add a skill to the project: skills.yaml, skills.lock, installed
  skillpm install                     # install what skills.lock pins (teammates, after a clone)
  skillpm install --frozen            # CI: exactly the committed lock, or exit 8
  skillpm list                        # what agents see, in precedence order
  skillpm run count_words text=hi     # run a tool an installed skill declares
  skillpm init pdf-tools --tool extract-text --runtime python
  skillpm lint --strict pdf-tools
  skillpm publish pdf-tools ghcr.io/acme/skills   # pushed as ghcr.io/acme/skills/pdf-tools`
	app.Description = `skillpm packs skill folders (SKILL.md + scripts + tools) into OCI artifacts,
publishes them to any OCI registry or a local OCI layout folder, resolves their
dependencies into a digest-pinned skills.lock, installs them into the folders
agents read (.claude/skills, .agents/skills, ...) and runs the tools they declare.

Exit codes are listed in the README ("Exit codes").`
	return app
}

// run is main without os.Exit, for tests.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(ctx, &command.Env{Stdin: stdin, Stdout: stdout, Stderr: stderr}, args)
}

// runEnv runs the command line args with e's streams and returns the exit
// code, with the full program's exit codes and hints for every error.
func runEnv(ctx context.Context, e *command.Env, args []string) int {
	e.ExitCode, e.Hint = exitCode, hintFor
	e.Proxy = func(outbound []string, l net.Listener) (toolrun.Proxy, error) {
		px, err := netproxy.Start(outbound, l)
		if err != nil {
			return nil, err
		}
		return px, nil
	}
	return command.Run(ctx, e, newApp(e), args)
}
