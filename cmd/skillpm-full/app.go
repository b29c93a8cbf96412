package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/skillpm/skillpm/internal/sigproto"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/skillpm/skillpm/config"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/toolrun"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// env is what every command shares: the streams and the global output
// settings. Commands read it; only this package prints or exits.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	json           bool
	quiet          bool
	color          bool // colour on stdout
	colorErr       bool // colour on stderr
	debug          bool
	verbose        bool // whole explanations (a conflict's full derivation)
	stderrTTY      bool
	cleanups       []func() // run after the command, last first

	groups toolrun.Groups // the tool runs' process groups, for a second signal

	terminal  *bool      // overrides whether the user can be asked (tests)
	confirmMu sync.Mutex // one confirmation prompt at a time

	config    *config.User // the user config, read once by userConfig
	configErr error

	sigHelper *sigproto.Helper // the skillpm-sigstore helper, once started (sigstore)
}

// globalFlags are accepted both before and after the command name, so
// "skillpm --json lint" and "skillpm lint --json" mean the same.
func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON on stdout"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only errors"},
		&cli.BoolFlag{Name: "no-color", Usage: "disable colour (also NO_COLOR=1)"},
		&cli.BoolFlag{Name: "debug", Usage: "log what skillpm does on stderr (never credentials)"},
		&cli.BoolFlag{Name: "verbose", Usage: "explain in full: a dependency conflict's whole derivation, however long"},
	}
}

// anyBool reports whether a global flag is set at any level of the
// command line.
func anyBool(c *cli.Context, name string) bool {
	for _, x := range c.Lineage() {
		if x.Bool(name) {
			return true
		}
	}
	return false
}

func (e *env) load(c *cli.Context) {
	e.json = anyBool(c, "json")
	e.quiet = anyBool(c, "quiet")
	e.debug = anyBool(c, "debug")
	e.verbose = anyBool(c, "verbose")
	_, noColor := os.LookupEnv("NO_COLOR")
	e.color = !anyBool(c, "no-color") && !noColor && isTerminal(e.stdout) && os.Getenv("TERM") != "dumb"
	e.stderrTTY = isTerminal(e.stderr)
	e.colorErr = !anyBool(c, "no-color") && !noColor && e.stderrTTY && os.Getenv("TERM") != "dumb"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// atExit registers fn to run when the command has finished.
func (e *env) atExit(fn func()) { e.cleanups = append(e.cleanups, fn) }

// logf prints a progress or log line on stderr unless --quiet, its
// arguments escaped (termText: they may quote skills and registries).
func (e *env) logf(format string, args ...any) {
	if !e.quiet {
		fmt.Fprintln(e.stderr, termText(fmt.Sprintf(format, args...)))
	}
}

// debugf prints a line on stderr with --debug, escaped as logf's.
func (e *env) debugf(format string, args ...any) {
	if e.debug {
		fmt.Fprintln(e.stderr, termText(fmt.Sprintf("debug: "+format, args...)))
	}
}

// paint wraps s in an ANSI colour when colour is on.
func (e *env) paint(code, s string) string {
	if !e.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// commands lists every command in help order; each lives in its own file.
func commands(e *env) []*cli.Command {
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
		listCommand(e),
		statusCommand(e),
		doctorCommand(e),
		searchCommand(e),
		indexCommand(e),
		loginCommand(e),
		logoutCommand(e),
		agentsCommand(e),
		toolsCommand(e),
		runCommand(e),
		execCommand(e),
		promptCommand(e),
		selectCommand(e),
		testCommand(e),
		mcpCommand(e),
		versionCommand(e),
		completionCommand(e),
	}
}

// categories group the top-level help so the everyday verbs come first.
// urfave/cli sorts categories by name; these names sort in this order.
var categories = map[string]string{
	"add": "Add and install skills", "install": "Add and install skills", "import": "Add and install skills",
	"remove": "Add and install skills", "update": "Add and install skills",
	"list": "Add and install skills", "outdated": "Add and install skills",
	"why": "Add and install skills", "status": "Add and install skills", "doctor": "Add and install skills",
	"search": "Add and install skills", "index": "Add and install skills",

	"agents": "Agents: run what skills declare", "tools": "Agents: run what skills declare", "run": "Agents: run what skills declare",
	"exec": "Agents: run what skills declare", "prompt": "Agents: run what skills declare",
	"mcp": "Agents: run what skills declare",

	"init": "Author and publish skills", "lint": "Author and publish skills",
	"pack": "Author and publish skills", "publish": "Author and publish skills",
	"sign": "Author and publish skills", "key": "Author and publish skills",

	"verify": "CI, trust and mirrors", "sync": "CI, trust and mirrors",
	"bundle": "CI, trust and mirrors",

	"pull": "Registries", "inspect": "Registries", "versions": "Registries",
	"login": "Registries", "logout": "Registries",

	"version": "Shell completion and version", "completion": "Shell completion and version",
}

func newApp(e *env) *cli.App {
	app := &cli.App{
		Name:    "skillpm",
		Usage:   "the package manager for agent skills",
		Version: version,
		UsageText: `skillpm [global options] command [command options] [arguments...]
skillpm --version | -V

Examples:
  skillpm add pdf-tools               # add a skill to the project: skills.yaml, skills.lock, installed
  skillpm install                     # install what skills.lock pins (teammates, after a clone)
  skillpm install --frozen            # CI: exactly the committed lock, or exit 8
  skillpm list                        # what agents see, in precedence order
  skillpm run count_words text=hi     # run a tool an installed skill declares
  skillpm init pdf-tools --tool extract-text --runtime python
  skillpm lint --strict pdf-tools
  skillpm publish pdf-tools ghcr.io/acme/skills   # pushed as ghcr.io/acme/skills/pdf-tools`,
		Description: `skillpm packs skill folders (SKILL.md + scripts + tools) into OCI artifacts,
publishes them to any OCI registry or a local OCI layout folder, resolves their
dependencies into a digest-pinned skills.lock, installs them into the folders
agents read (.claude/skills, .agents/skills, ...) and runs the tools they declare.

Exit codes are listed in the README ("Exit codes").`,
		Flags:                  globalFlags(),
		EnableBashCompletion:   true,
		HideVersion:            true,
		UseShortOptionHandling: true,
		Reader:                 e.stdin,
		Writer:                 e.stdout,
		ErrWriter:              e.stderr,
		Before: func(c *cli.Context) error {
			e.load(c)
			return nil
		},
		// Errors are printed and mapped to exit codes by run, not by cli.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageErrorf(c, "%v", err)
		},
		CommandNotFound: func(c *cli.Context, name string) {
			// Reported through the error path below.
		},
	}
	app.Commands = commands(e)
	for _, cmd := range app.Commands {
		cmd.Category = categories[cmd.Name]
		decorate(e, cmd)
	}
	return app
}

// decorate gives every command the global flags, a usage-error handler and
// env loading, recursively.
func decorate(e *env, cmd *cli.Command) {
	cmd.Flags = append(cmd.Flags, globalFlags()...)
	cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
		return usageErrorf(c, "%v", err)
	}
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		e.load(c)
		if before != nil {
			return before(c)
		}
		return nil
	}
	for _, sub := range cmd.Subcommands {
		decorate(e, sub)
	}
}

// run is main without os.Exit, for tests.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(ctx, &env{stdin: stdin, stdout: stdout, stderr: stderr}, args)
}

// runEnv runs the command line args with e's streams and returns the exit
// code.
func runEnv(ctx context.Context, e *env, args []string) int {
	if len(args) == 2 && (args[1] == "--version" || args[1] == "-V") {
		// The plain 'skillpm --version' that scripts and agents run to
		// probe the tool: no command tree to build (newApp allocates every
		// command's flags), the same bytes as the version command.
		if err := printVersion(e); err != nil {
			return report(e, err)
		}
		return exitOK
	}
	app := newApp(e)
	if commandName(args) == "" && (hasFlag(args, "version") || hasFlag(args, "V")) {
		// 'skillpm --version' and '-V', as npm, cargo and uv spell it.
		rest := slices.DeleteFunc(slices.Clone(args[1:]), func(a string) bool {
			return a == "--version" || a == "-version" || a == "-V" || a == "--V"
		})
		args = append(append([]string{args[0]}, rest...), "version")
	}
	if name := commandName(args); name != "" && app.Command(name) == nil && name != "help" {
		e.json = hasFlag(args, "json")
		err := &usageError{msg: fmt.Sprintf("unknown command %q", name), hint: suggestCommand(app, name)}
		return report(e, err)
	}
	err := app.RunContext(ctx, reorderArgs(app, args))
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
	if err != nil {
		return report(e, err)
	}
	return exitOK
}

// report prints err once, in the form the user asked for, and returns its
// exit code.
func report(e *env, err error) int {
	code := exitCode(err)
	var silent *silentError
	if errors.As(err, &silent) {
		return code
	}
	var nse *resolve.NoSolutionError
	if errors.As(err, &nse) {
		nse.Verbose = e.verbose
	}
	msg, hint := err.Error(), hintFor(err)
	if e.json {
		writeJSON(e.stderr, map[string]any{"error": map[string]any{"message": msg, "hint": hint, "exitCode": code}})
		return code
	}
	fmt.Fprintf(e.stderr, "%s %s\n", e.paintErr("error:"), termText(msg))
	if hint != "" {
		fmt.Fprintf(e.stderr, "  %s\n", termText(hint))
	}
	return code
}

func (e *env) paintErr(s string) string {
	if !e.colorErr {
		return s
	}
	return "\x1b[31m" + s + "\x1b[0m"
}

func suggestCommand(app *cli.App, name string) string {
	best, bestD := "", 3
	for _, c := range app.Commands {
		for _, n := range c.Names() {
			if d := levenshtein(name, n); d < bestD {
				best, bestD = n, d
			}
		}
	}
	if best != "" {
		return fmt.Sprintf("did you mean %q? See 'skillpm --help'.", best)
	}
	return "see 'skillpm --help' for the list of commands"
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// commandName returns the first argument that is not a global flag.
func commandName(args []string) string {
	for _, a := range args[1:] {
		if a == "--" {
			return ""
		}
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// hasFlag reports whether --name appears anywhere on the command line, for
// errors raised before flags are parsed.
func hasFlag(args []string, name string) bool {
	for _, a := range args[1:] {
		if a == "--" {
			return false
		}
		if a == "--"+name || a == "-"+name {
			return true
		}
	}
	return false
}
