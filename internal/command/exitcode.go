package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/config"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/internal/sigproto"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/toolrun"
	"github.com/urfave/cli/v2"
)

// Exit codes. They are part of skillpm's interface: scripts and CI depend
// on them, so a code never changes meaning. README.md lists them.
const (
	ExitOK          = 0   // success
	ExitError       = 1   // unexpected failure (a bug or an environment problem)
	ExitUsage       = 2   // bad command line: unknown command or flag, wrong arguments
	ExitInvalid     = 3   // a skill is invalid: lint found errors, or SKILL.md cannot be read
	ExitNotFound    = 4   // a skill, version, tag, file or reference does not exist
	ExitNetwork     = 5   // a registry could not be reached or failed
	ExitAuth        = 6   // the registry refused the credentials, or a key's passphrase is wrong
	ExitConflict    = 7   // dependency resolution failed (conflict, no matching version)
	ExitStaleLock   = 8   // --frozen: skills.lock is missing or out of date
	ExitPolicy      = 9   // trust policy violation: unsigned or untrusted signer
	ExitIntegrity   = 10  // digest mismatch, tampered or hostile artifact
	ExitModified    = 11  // refusing to overwrite a hand-authored or locally edited skill
	ExitToolFailed  = 12  // a tool or script failed, timed out or was not allowed
	ExitAudit       = 13  // audit findings at or above the threshold (audit --fail-on; publish: critical)
	ExitUninstalled = 14  // verify: a locked skill is not installed in a target folder
	ExitDoctor      = 15  // doctor: an agent does not see exactly the locked skills
	ExitNoHelper    = 16  // a helper program (skillpm-sigstore, skillpm-full) is not installed
	ExitInterrupted = 130 // interrupted (Ctrl-C)
)

// LightExitCode picks the documented exit code for an error of the
// commands this package defines and the libraries they use. The full
// program's exit-code function (cmd/skillpm-full) knows every library and
// agrees with this one on these errors: a test there holds the two
// together, case for case.
func LightExitCode(err error) int {
	var (
		ue  *UsageError
		ce  cli.ExitCoder
		se  *SilentError
		le  *skill.Error
		te  *toolrun.Error
		nse *resolve.NoSolutionError
		hae *install.HandAuthoredError
		mde *install.ModifiedError
		owe *install.OwnedError
		ooe *install.OutsideError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, sigproto.ErrHelperMissing), errors.Is(err, ErrNoFull):
		return ExitNoHelper
	case errors.As(err, &se):
		return se.Code
	case errors.As(err, &ue):
		return ExitUsage
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.Is(err, agent.ErrNotFound):
		return ExitNotFound
	case errors.Is(err, agent.ErrSmokeInvalid), errors.Is(err, agent.ErrInvalid), errors.Is(err, skill.ErrNoFrontmatterTools):
		return ExitInvalid
	case errors.Is(err, agent.ErrUnknownAgent):
		return ExitUsage
	case errors.Is(err, lockfile.ErrInvalid):
		return ExitIntegrity
	case errors.Is(err, config.ErrInvalid), errors.Is(err, project.ErrInvalid):
		return ExitUsage
	case errors.As(err, &nse):
		return ExitConflict
	case errors.Is(err, resolve.ErrNotFound), errors.Is(err, project.ErrNotFound):
		return ExitNotFound
	case errors.Is(err, install.ErrBadRecord), errors.Is(err, install.ErrLinkedSkill), errors.As(err, &ooe), errors.Is(err, install.ErrUnsafeContent):
		return ExitIntegrity // an edited record, a skill folder or target leading elsewhere, a .git in a skill
	case errors.As(err, &hae), errors.As(err, &mde), errors.As(err, &owe):
		return ExitModified
	case errors.As(err, &te):
		if te.Kind == toolrun.SkillNotFound {
			return ExitNotFound
		}
		return ExitToolFailed
	case errors.As(err, &le):
		if errors.Is(err, skill.ErrNotSkill) {
			return ExitNotFound
		}
		return ExitInvalid
	case errors.As(err, &ce):
		if c := ce.ExitCode(); c > 0 {
			return c
		}
	}
	return ExitError
}

// LightHint returns the recommendation that goes under an error message,
// for the errors LightExitCode knows; "" when there is none.
func LightHint(err error) string {
	if h := DiskHint(err); h != "" {
		return h
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		return ue.Hint
	}
	var le *skill.Error
	if errors.As(err, &le) && le.Fix != "" {
		return "fix: " + le.Fix
	}
	var nf *agent.NotFoundError
	if errors.As(err, &nf) {
		return NotFoundHint(nf)
	}
	if errors.Is(err, ErrNoFull) { // also a tool run's, for its filtering proxy
		return "install skillpm's programs together: go install github.com/skillpm/skillpm/cmd/...@latest (README.md, \"Install\")"
	}
	var te *toolrun.Error
	if errors.As(err, &te) {
		return ToolHint(te)
	}
	if errors.Is(err, lockfile.ErrInvalid) {
		return "skills.lock is written only by skillpm: find who changed it (git log -p skills.lock) before re-resolving it"
	}
	if errors.Is(err, agent.ErrUnknownAgent) {
		return "'skillpm agents' lists the agents and the folders each reads"
	}
	if errors.Is(err, config.ErrInvalid) {
		return `fix or remove the user config; README.md ("Configuration") lists its keys`
	}
	if errors.Is(err, resolve.ErrNotFound) {
		return "check the name and the registry it resolves from ('registry:' in skills.yaml, or SKILLPM_REGISTRY); 'skillpm search NAME' finds published skills"
	}
	return ""
}

// DiskHint says what to do about a local file system that refused a
// write, full (ENOSPC), over quota (EDQUOT) or read-only (EROFS), naming
// the nearest existing folder of the path written (a rename's or link's
// new name); "" for any other error. The exit code of such an error is
// ExitError, an environment problem.
func DiskHint(err error) string {
	if !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EDQUOT) && !errors.Is(err, syscall.EROFS) {
		return ""
	}
	var (
		pe  *fs.PathError
		le  *os.LinkError
		dir string
	)
	switch {
	case errors.As(err, &pe):
		dir = pe.Path
	case errors.As(err, &le):
		dir = le.New
	default:
		return ""
	}
	// The nearest folder that still exists: the file, or the staging
	// folder it was written in, is gone by now.
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return fmt.Sprintf("the file system holding %s is full; free space there and run the command again (skillpm's cache is under SKILLPM_HOME, its temporary files under TMPDIR)", dir)
	case errors.Is(err, syscall.EROFS):
		return fmt.Sprintf("the file system holding %s is read-only; make it writable, or point SKILLPM_HOME or TMPDIR elsewhere, and run the command again", dir)
	}
	return ""
}

// NotFoundHint lists what exists instead of an unknown skill or tool.
func NotFoundHint(nf *agent.NotFoundError) string {
	cmd := "skillpm tools"
	if nf.Kind == "skill" {
		cmd = "skillpm prompt"
	}
	if len(nf.Available) == 0 {
		return fmt.Sprintf("no installed skill declares any; see '%s' (run it where the skills are installed, or pass -C DIR)", cmd)
	}
	list := nf.Available
	if len(list) > 10 {
		list = append(list[:10:10], fmt.Sprintf("... (%d more)", len(nf.Available)-10))
	}
	return fmt.Sprintf("available %ss: %s; see '%s'", nf.Kind, strings.Join(list, ", "), cmd)
}

// ToolHint says what to do about a failed tool or script run.
func ToolHint(te *toolrun.Error) string {
	switch te.Kind {
	case toolrun.InvalidInput:
		return "see the tool's input schema in 'skillpm tools --json'"
	case toolrun.ScriptNotAllowed:
		return "scripts must be regular files inside the skill folder; the skill's author must fix the path"
	case toolrun.ScriptNotFound:
		return "check the script path against the skill folder's files"
	case toolrun.ExecutionTimeout:
		return "each run is limited by --timeout, or by the tool's own timeout_seconds when lower (without --timeout: its own, up to 10m, else 30s); pass a longer --timeout if the tool needs more time"
	}
	return ""
}

// UsageError is a bad command line.
type UsageError struct {
	Msg  string
	Hint string
}

func (e *UsageError) Error() string { return e.Msg }

// UsageErrorf is a usage error about c's command line, whose hint points
// at the command's help.
func UsageErrorf(c *cli.Context, format string, args ...any) error {
	hint := "see 'skillpm --help'"
	if path := commandPath(c); path != "" {
		hint = fmt.Sprintf("see 'skillpm %s --help'", path)
	}
	return &UsageError{Msg: fmt.Sprintf(format, args...), Hint: hint}
}

// commandPath is the command c runs, with its parents ("export
// well-known"), or "" at the root. Command.FullName does not know the
// parents of a subcommand, so the contexts' lineage is walked instead;
// the root context's command is the app itself, named "skillpm".
func commandPath(c *cli.Context) string {
	if c == nil {
		return ""
	}
	var names []string
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name != "" && ctx.Command.Name != c.App.Name {
			names = append([]string{ctx.Command.Name}, names...)
		}
	}
	return strings.Join(slices.Compact(names), " ")
}

// SilentError carries an exit code for a failure the command has already
// reported in full (lint findings, for example).
type SilentError struct{ Code int }

func (e *SilentError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// WriteJSON writes v as indented JSON. A "##[" in a string, which a
// GitHub Actions runner reads as a workflow command anywhere in a line
// (see ciText), is written "#\u0023[": the same string to a JSON reader.
// No line of indented JSON starts with "::".
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(ciJSON(b.Bytes()))
	return err
}

// ciJSON writes each "##[" of the JSON b (only a string can hold one)
// as "#\u0023[", which a CI runner does not read as a command.
func ciJSON(b []byte) []byte {
	if !bytes.Contains(b, []byte("##[")) {
		return b
	}
	return bytes.ReplaceAll(b, []byte("##["), []byte(`#\u0023[`))
}
