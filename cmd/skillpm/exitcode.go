package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/internal/sigproto"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/agent/mcpserver"
	"github.com/skillpm/skillpm/audit"
	"github.com/skillpm/skillpm/config"
	"github.com/skillpm/skillpm/importer"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/source/git"
	"github.com/skillpm/skillpm/source/giturl"
	"github.com/skillpm/skillpm/source/wellknown"
	skillsync "github.com/skillpm/skillpm/sync"
	"github.com/skillpm/skillpm/toolrun"
	"github.com/skillpm/skillpm/verify"
	"github.com/urfave/cli/v2"
)

// Exit codes. They are part of skillpm's interface: scripts and CI depend
// on them, so a code never changes meaning. README.md lists them.
const (
	exitOK          = 0   // success
	exitError       = 1   // unexpected failure (a bug or an environment problem)
	exitUsage       = 2   // bad command line: unknown command or flag, wrong arguments
	exitInvalid     = 3   // a skill is invalid: lint found errors, or SKILL.md cannot be read
	exitNotFound    = 4   // a skill, version, tag, file or reference does not exist
	exitNetwork     = 5   // a registry could not be reached or failed
	exitAuth        = 6   // the registry refused the credentials, or a key's passphrase is wrong
	exitConflict    = 7   // dependency resolution failed (conflict, no matching version)
	exitStaleLock   = 8   // --frozen: skills.lock is missing or out of date
	exitPolicy      = 9   // trust policy violation: unsigned or untrusted signer
	exitIntegrity   = 10  // digest mismatch, tampered or hostile artifact
	exitModified    = 11  // refusing to overwrite a hand-authored or locally edited skill
	exitToolFailed  = 12  // a tool or script failed, timed out or was not allowed
	exitAudit       = 13  // audit findings at or above the threshold (audit --fail-on; publish: critical)
	exitUninstalled = 14  // verify: a locked skill is not installed in a target folder
	exitDoctor      = 15  // doctor: an agent does not see exactly the locked skills
	exitNoHelper    = 16  // the skillpm-sigstore helper program (signing, signature checks) is not installed
	exitInterrupted = 130 // interrupted (Ctrl-C)
)

// exitCode picks the documented exit code for err. It is the one place
// where errors become codes.
func exitCode(err error) int {
	var (
		ue  *usageError
		ce  cli.ExitCoder
		se  *silentError
		le  *skill.Error
		te  *toolrun.Error
		nse *resolve.NoSolutionError
		hae *install.HandAuthoredError
		mde *install.ModifiedError
		owe *install.OwnedError
		ooe *install.OutsideError
		use *manager.UnknownSkillError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, sigproto.ErrHelperMissing):
		return exitNoHelper
	case errors.As(err, &se):
		return se.code
	case errors.As(err, &ue), errors.As(err, &use):
		return exitUsage
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, mcpserver.ErrInputEnded): // mcp stopped calls still running
		return exitToolFailed
	case errors.Is(err, agent.ErrNotFound):
		return exitNotFound
	case errors.Is(err, agent.ErrSmokeInvalid), errors.Is(err, agent.ErrInvalid), errors.Is(err, skill.ErrNoFrontmatterTools):
		return exitInvalid
	case errors.Is(err, verify.ErrPolicy):
		return exitPolicy
	case errors.Is(err, audit.ErrFindings):
		return exitAudit
	case errors.Is(err, audit.ErrAllowList), errors.Is(err, agent.ErrUnknownAgent):
		return exitUsage
	case errors.Is(err, manager.ErrStaleLock):
		return exitStaleLock
	case errors.Is(err, source.ErrPinMismatch):
		return exitIntegrity // a moved tag, a commit force-pushed away
	case errors.Is(err, giturl.ErrSource), errors.Is(err, manager.ErrNoSource):
		return exitUsage
	case errors.Is(err, source.ErrNotSkill):
		return exitInvalid
	case errors.Is(err, source.ErrNotFound), errors.Is(err, git.ErrNotFound):
		return exitNotFound
	case errors.Is(err, git.ErrAuth):
		return exitAuth
	case errors.Is(err, git.ErrFailed):
		return exitNetwork // git could not read the repository
	case errors.Is(err, manager.ErrLockMismatch), errors.Is(err, lockfile.ErrInvalid), errors.Is(err, importer.ErrFormat):
		return exitIntegrity
	case errors.Is(err, skillsync.ErrRejected), errors.Is(err, registry.ErrNotVetted):
		return exitPolicy
	case errors.Is(err, skillsync.ErrConfig), errors.Is(err, config.ErrInvalid), errors.Is(err, registry.ErrNameMismatch),
		errors.Is(err, project.ErrInvalid):
		return exitUsage
	case errors.Is(err, manager.ErrNoRegistry):
		return exitUsage
	case errors.As(err, &nse):
		return exitConflict
	case errors.Is(err, resolve.ErrNotFound), errors.Is(err, manager.ErrNotInstalled), errors.Is(err, project.ErrNotFound):
		return exitNotFound
	case errors.Is(err, install.ErrBadRecord), errors.Is(err, install.ErrLinkedSkill), errors.As(err, &ooe):
		return exitIntegrity // an edited record, a skill folder or target leading elsewhere
	case errors.As(err, &hae), errors.As(err, &mde), errors.As(err, &owe):
		return exitModified
	case errors.Is(err, wellknown.ErrIntegrity), errors.Is(err, wellknown.ErrInvalidIndex), errors.Is(err, wellknown.ErrNoDigest):
		return exitIntegrity // a well-known artifact or index that cannot be trusted
	case errors.Is(err, wellknown.ErrLinkedTarget):
		return exitIntegrity // export's .well-known leads elsewhere
	case errors.Is(err, wellknown.ErrInsecure):
		return exitPolicy // plain http or a foreign origin, refused
	case errors.Is(err, git.ErrLocalOutside):
		return exitPolicy // a project's file:// repository outside it, not allowed by the user
	case errors.Is(err, wellknown.ErrNotFound), errors.Is(err, wellknown.ErrUnknownSkill), errors.Is(err, skillsync.ErrNoTags):
		return exitNotFound
	case errors.Is(err, wellknown.ErrNetwork):
		return exitNetwork
	case errors.Is(err, wellknown.ErrExportSource):
		return exitInvalid
	case errors.Is(err, registry.ErrUnauthorized), errors.Is(err, verify.ErrBadPassphrase):
		return exitAuth
	case errors.Is(err, registry.ErrNotFound):
		return exitNotFound
	case errors.Is(err, registry.ErrNetwork):
		return exitNetwork
	case errors.Is(err, registry.ErrIntegrity), errors.Is(err, registry.ErrUnsafeArchive), errors.Is(err, registry.ErrNotSkill):
		return exitIntegrity
	case errors.Is(err, registry.ErrTagExists), errors.Is(err, registry.ErrExists):
		return exitModified
	case errors.As(err, &te):
		if te.Kind == toolrun.SkillNotFound {
			return exitNotFound
		}
		return exitToolFailed
	case errors.As(err, &le):
		if errors.Is(err, skill.ErrNotSkill) {
			return exitNotFound
		}
		return exitInvalid
	case errors.As(err, &ce):
		if c := ce.ExitCode(); c > 0 {
			return c
		}
	}
	return exitError
}

// verifyExitCode is the exit code for verify's worst status.
func verifyExitCode(s verify.Status) int {
	switch s {
	case verify.StatusOK:
		return exitOK
	case verify.StatusTampered:
		return exitIntegrity
	case verify.StatusPolicy:
		return exitPolicy
	case verify.StatusNetwork:
		return exitNetwork
	case verify.StatusNotInstalled:
		return exitUninstalled
	}
	return exitError
}

// hintFor returns the recommendation that goes under an error message.
func hintFor(err error) string {
	var ue *usageError
	if errors.As(err, &ue) {
		return ue.hint
	}
	var use *manager.UnknownSkillError
	if errors.As(err, &use) {
		return use.Hint
	}
	var le *skill.Error
	if errors.As(err, &le) && le.Fix != "" {
		return "fix: " + le.Fix
	}
	var nf *agent.NotFoundError
	if errors.As(err, &nf) {
		return notFoundHint(nf)
	}
	var te *toolrun.Error
	if errors.As(err, &te) {
		return toolHint(te)
	}
	if errors.Is(err, registry.ErrNameMismatch) {
		return "publish to the registry prefix (ghcr.io/acme/skills, oci:./registry): the skill's name is appended"
	}
	if errors.Is(err, manager.ErrLockMismatch) || errors.Is(err, lockfile.ErrInvalid) {
		return "skills.lock is written only by skillpm: find who changed it (git log -p skills.lock) before re-resolving it"
	}
	if errors.Is(err, agent.ErrUnknownAgent) {
		return "'skillpm agents' lists the agents and the folders each reads"
	}
	if errors.Is(err, config.ErrInvalid) {
		return `fix or remove the user config; README.md ("Configuration") lists its keys`
	}
	var ae *verify.AuditError
	if errors.As(err, &ae) {
		return "'skillpm audit REPOSITORY:VERSION' lists every finding without installing; pin a version the trust policy accepts, or remove the skill (README.md, \"Trust\": audit)"
	}
	if errors.Is(err, audit.ErrFindings) {
		return "fix them, or suppress each with a reason ('skillpm-audit-ignore RULE reason' beside it, or .skillpm-audit.yaml), or pass --allow-audit-findings"
	}
	if errors.Is(err, verify.ErrBadPassphrase) {
		return "set SKILLPM_KEY_PASSWORD to the passphrase 'skillpm key generate' was given, or unset it to be prompted"
	}
	if errors.Is(err, git.ErrFailed) {
		return "check the repository's URL and the network: 'git ls-remote URL' shows what git sees"
	}
	if errors.Is(err, source.ErrNotFound) || errors.Is(err, source.ErrPinMismatch) || errors.Is(err, git.ErrNotFound) {
		return "" // the source's message names the source and the fix
	}
	if errors.Is(err, resolve.ErrNotFound) {
		return "check the name and the registry it resolves from ('registry:' in skills.yaml, or SKILLPM_REGISTRY); 'skillpm search NAME' finds published skills"
	}
	if h := registryHint(err); h != "" {
		return h
	}
	return ""
}

// notFoundHint lists what exists instead of an unknown skill or tool.
func notFoundHint(nf *agent.NotFoundError) string {
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

// toolHint says what to do about a failed tool or script run.
func toolHint(te *toolrun.Error) string {
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

// usageError is a bad command line.
type usageError struct {
	msg  string
	hint string
}

func (e *usageError) Error() string { return e.msg }

func usageErrorf(c *cli.Context, format string, args ...any) error {
	hint := "see 'skillpm --help'"
	if path := commandPath(c); path != "" {
		hint = fmt.Sprintf("see 'skillpm %s --help'", path)
	}
	return &usageError{msg: fmt.Sprintf(format, args...), hint: hint}
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

// silentError carries an exit code for a failure the command has already
// reported in full (lint findings, for example).
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
