// Package command holds what both skillpm programs share: the environment
// every command reads (streams, global flags, the user config), how errors
// become messages and exit codes, and the everyday read-only commands
// agents call constantly (list, status, tools, prompt, search, run,
// version), and a warm no-op install.
//
// skillpm is two programs. cmd/skillpm, the one users run, links only this
// package and the light libraries it needs, so those commands start about
// as fast as a bare Go program; every other command line it hands, by
// exec, to cmd/skillpm-full, which links the registry clients, sigstore
// and the MCP server, and registers these same commands beside its own.
package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/skillpm/skillpm/config"
	"github.com/skillpm/skillpm/internal/sigproto"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/toolrun"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// Version is skillpm's version, set at build time with
// -ldflags "-X github.com/skillpm/skillpm/internal/command.Version=...".
var Version = "dev"

// Env is what every command shares: the streams and the global output
// settings. Commands read it; only the command layer prints or exits.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	JSON           bool
	Quiet          bool
	Color          bool // colour on stdout
	ColorErr       bool // colour on stderr
	Debug          bool
	Verbose        bool // whole explanations (a conflict's full derivation)
	StderrTTY      bool
	Args           []string // the command line, as Run got it

	// ExitCode and Hint turn an error into its exit code and the
	// recommendation printed under it (nil: LightExitCode and LightHint).
	// The full program sets its own, which know every library's errors.
	ExitCode func(error) int
	Hint     func(error) string

	Groups toolrun.Groups // the tool runs' process groups, for a second signal
	// Proxy starts the filtering proxy of a tool run that declares
	// network.outbound hosts. The full program serves it in process
	// (netproxy.Start); nil, as in the front, which does not link an HTTP
	// server, serves it in a skillpm-full child (toolrun.ProxyProcess).
	Proxy func(outbound []string, l net.Listener) (toolrun.Proxy, error)

	Terminal  *bool      // overrides whether the user can be asked (tests)
	ConfirmMu sync.Mutex // one confirmation prompt at a time

	SigHelper *sigproto.Helper // the skillpm-sigstore helper, once started (sigstore)

	cleanups  []func()     // run after the command, last first
	config    *config.User // the user config, read once by UserConfig
	configErr error
}

// GlobalFlags are accepted both before and after the command name, so
// "skillpm --json lint" and "skillpm lint --json" mean the same.
func GlobalFlags() []cli.Flag {
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

// Load reads the global flags of c and the terminal's settings.
func (e *Env) Load(c *cli.Context) {
	e.JSON = anyBool(c, "json")
	e.Quiet = anyBool(c, "quiet")
	e.Debug = anyBool(c, "debug")
	e.Verbose = anyBool(c, "verbose")
	_, noColor := os.LookupEnv("NO_COLOR")
	e.Color = !anyBool(c, "no-color") && !noColor && IsTerminal(e.Stdout) && os.Getenv("TERM") != "dumb"
	e.StderrTTY = IsTerminal(e.Stderr)
	e.ColorErr = !anyBool(c, "no-color") && !noColor && e.StderrTTY && os.Getenv("TERM") != "dumb"
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// AtExit registers fn to run when the command has finished.
func (e *Env) AtExit(fn func()) { e.cleanups = append(e.cleanups, fn) }

// Logf prints a progress or log line on stderr unless --quiet, its
// arguments escaped (TermText: they may quote skills and registries).
func (e *Env) Logf(format string, args ...any) {
	if !e.Quiet {
		fmt.Fprintln(e.Stderr, TermText(fmt.Sprintf(format, args...)))
	}
}

// Debugf prints a line on stderr with --debug, escaped as Logf's.
func (e *Env) Debugf(format string, args ...any) {
	if e.Debug {
		fmt.Fprintln(e.Stderr, TermText(fmt.Sprintf("debug: "+format, args...)))
	}
}

// Paint wraps s in an ANSI colour when colour is on.
func (e *Env) Paint(code, s string) string {
	if !e.Color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// PaintErr paints s red on stderr when colour is on there.
func (e *Env) PaintErr(s string) string {
	if !e.ColorErr {
		return s
	}
	return "\x1b[31m" + s + "\x1b[0m"
}

// Light lists the commands this package defines, in help order: the ones
// the front program runs itself.
func Light(e *Env) []*cli.Command {
	return []*cli.Command{
		ListCommand(e),
		StatusCommand(e),
		SearchCommand(e),
		ToolsCommand(e),
		RunCommand(e),
		PromptCommand(e),
		VersionCommand(e),
	}
}

// categories group the top-level help so the everyday verbs come first
// (a command's own help names its category too, in both programs).
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

// NewApp is the command-line application over cmds: global flags,
// usage-error handling and Env loading on every command.
func NewApp(e *Env, cmds []*cli.Command) *cli.App {
	app := &cli.App{
		Name:                   "skillpm",
		Usage:                  "the package manager for agent skills",
		Version:                Version,
		Flags:                  GlobalFlags(),
		EnableBashCompletion:   true,
		HideVersion:            true,
		UseShortOptionHandling: true,
		Reader:                 e.Stdin,
		Writer:                 e.Stdout,
		ErrWriter:              e.Stderr,
		Before: func(c *cli.Context) error {
			e.Load(c)
			return nil
		},
		// Errors are printed and mapped to exit codes by Run, not by cli.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return UsageErrorf(c, "%v", err)
		},
		CommandNotFound: func(c *cli.Context, name string) {
			// Reported through the error path in Run.
		},
		Commands: cmds,
	}
	for _, cmd := range app.Commands {
		cmd.Category = categories[cmd.Name]
		decorate(e, cmd)
	}
	return app
}

// decorate gives every command the global flags, a usage-error handler and
// env loading, recursively.
func decorate(e *Env, cmd *cli.Command) {
	cmd.Flags = append(cmd.Flags, GlobalFlags()...)
	cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
		return UsageErrorf(c, "%v", err)
	}
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		e.Load(c)
		if before != nil {
			return before(c)
		}
		return nil
	}
	for _, sub := range cmd.Subcommands {
		decorate(e, sub)
	}
}

// Run runs the command line args on app with e's streams and returns the
// exit code.
func Run(ctx context.Context, e *Env, app *cli.App, args []string) int {
	e.Args = args
	if IsVersionProbe(args) {
		// The plain 'skillpm --version' that scripts and agents run to
		// probe the tool: the same bytes as the version command.
		if err := printVersion(e); err != nil {
			return Report(e, err)
		}
		return ExitOK
	}
	if CommandName(args) == "" && (HasFlag(args, "version") || HasFlag(args, "V")) {
		// 'skillpm --version' and '-V', as npm, cargo and uv spell it.
		rest := slices.DeleteFunc(slices.Clone(args[1:]), func(a string) bool {
			return a == "--version" || a == "-version" || a == "-V" || a == "--V"
		})
		args = append(append([]string{args[0]}, rest...), "version")
	}
	if name := CommandName(args); name != "" && app.Command(name) == nil && name != "help" {
		e.JSON = HasFlag(args, "json")
		err := &UsageError{Msg: fmt.Sprintf("unknown command %q", name), Hint: suggestCommand(app, name)}
		return Report(e, err)
	}
	err := app.RunContext(ctx, reorderArgs(app, args))
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
	if err != nil {
		return Report(e, err)
	}
	return ExitOK
}

// IsVersionProbe reports whether args are exactly 'skillpm --version' (or
// -V).
func IsVersionProbe(args []string) bool {
	return len(args) == 2 && (args[1] == "--version" || args[1] == "-V")
}

// Report prints err once, in the form the user asked for, and returns its
// exit code.
func Report(e *Env, err error) int {
	exitCode, hintFor := e.ExitCode, e.Hint
	if exitCode == nil {
		exitCode = LightExitCode
	}
	if hintFor == nil {
		hintFor = LightHint
	}
	code := exitCode(err)
	var silent *SilentError
	if errors.As(err, &silent) {
		return code
	}
	var nse *resolve.NoSolutionError
	if errors.As(err, &nse) {
		nse.Verbose = e.Verbose
	}
	msg, hint := err.Error(), hintFor(err)
	if e.JSON {
		WriteJSON(e.Stderr, map[string]any{"error": map[string]any{"message": msg, "hint": hint, "exitCode": code}})
		return code
	}
	fmt.Fprintf(e.Stderr, "%s %s\n", e.PaintErr("error:"), TermText(msg))
	if hint != "" {
		fmt.Fprintf(e.Stderr, "  %s\n", TermText(hint))
	}
	return code
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

// CommandName returns the first argument that is not a global flag.
func CommandName(args []string) string {
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

// HasFlag reports whether --name appears anywhere on the command line, for
// errors raised before flags are parsed.
func HasFlag(args []string, name string) bool {
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
