package main

import (
	"context"
	"errors"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/internal/sigproto"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/agent/mcpserver"
	"github.com/skillpm/skillpm/audit"
	"github.com/skillpm/skillpm/bundle"
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

// exitCode picks the documented exit code for err. It is the one place
// where errors become codes.
func exitCode(err error) int {
	var (
		ue  *command.UsageError
		ce  cli.ExitCoder
		se  *command.SilentError
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
		return command.ExitOK
	case errors.Is(err, sigproto.ErrHelperMissing):
		return command.ExitNoHelper
	case errors.As(err, &se):
		return se.Code
	case errors.As(err, &ue), errors.As(err, &use):
		return command.ExitUsage
	case errors.Is(err, context.Canceled):
		return command.ExitInterrupted
	case errors.Is(err, mcpserver.ErrInputEnded): // mcp stopped calls still running
		return command.ExitToolFailed
	case errors.Is(err, agent.ErrNotFound):
		return command.ExitNotFound
	case errors.Is(err, agent.ErrSmokeInvalid), errors.Is(err, agent.ErrInvalid), errors.Is(err, skill.ErrNoFrontmatterTools):
		return command.ExitInvalid
	case errors.Is(err, verify.ErrPolicy):
		return command.ExitPolicy
	case errors.Is(err, audit.ErrFindings):
		return command.ExitAudit
	case errors.Is(err, audit.ErrAllowList), errors.Is(err, agent.ErrUnknownAgent):
		return command.ExitUsage
	case errors.Is(err, manager.ErrStaleLock):
		return command.ExitStaleLock
	case errors.Is(err, source.ErrPinMismatch):
		return command.ExitIntegrity // a moved tag, a commit force-pushed away
	case errors.Is(err, giturl.ErrSource), errors.Is(err, manager.ErrNoSource):
		return command.ExitUsage
	case errors.Is(err, source.ErrNotSkill):
		return command.ExitInvalid
	case errors.Is(err, source.ErrNotFound), errors.Is(err, git.ErrNotFound):
		return command.ExitNotFound
	case errors.Is(err, git.ErrAuth):
		return command.ExitAuth
	case errors.Is(err, git.ErrFailed):
		return command.ExitNetwork // git could not read the repository
	case errors.Is(err, manager.ErrLockMismatch), errors.Is(err, lockfile.ErrInvalid), errors.Is(err, importer.ErrFormat):
		return command.ExitIntegrity
	case errors.Is(err, skillsync.ErrRejected), errors.Is(err, registry.ErrNotVetted):
		return command.ExitPolicy
	case errors.Is(err, skillsync.ErrConfig), errors.Is(err, config.ErrInvalid), errors.Is(err, registry.ErrNameMismatch),
		errors.Is(err, project.ErrInvalid):
		return command.ExitUsage
	case errors.Is(err, manager.ErrNoRegistry):
		return command.ExitUsage
	case errors.As(err, &nse):
		return command.ExitConflict
	case errors.Is(err, resolve.ErrNotFound), errors.Is(err, manager.ErrNotInstalled), errors.Is(err, project.ErrNotFound):
		return command.ExitNotFound
	case errors.Is(err, install.ErrBadRecord), errors.Is(err, install.ErrLinkedSkill), errors.As(err, &ooe), errors.Is(err, install.ErrUnsafeContent):
		return command.ExitIntegrity // an edited record, a skill folder or target leading elsewhere, a .git in a skill
	case errors.As(err, &hae), errors.As(err, &mde), errors.As(err, &owe):
		return command.ExitModified
	case errors.Is(err, wellknown.ErrIntegrity), errors.Is(err, wellknown.ErrInvalidIndex), errors.Is(err, wellknown.ErrNoDigest):
		return command.ExitIntegrity // a well-known artifact or index that cannot be trusted
	case errors.Is(err, bundle.ErrBadBundle):
		return command.ExitIntegrity // a bundle holding more than an OCI layout's files
	case errors.Is(err, wellknown.ErrLinkedTarget):
		return command.ExitIntegrity // export's .well-known leads elsewhere
	case errors.Is(err, wellknown.ErrInsecure), errors.Is(err, registry.ErrInsecure):
		return command.ExitPolicy // plain http or a foreign origin, refused
	case errors.Is(err, git.ErrLocalOutside):
		return command.ExitPolicy // a project's file:// repository outside it, not allowed by the user
	case errors.Is(err, wellknown.ErrNotFound), errors.Is(err, wellknown.ErrUnknownSkill), errors.Is(err, skillsync.ErrNoTags):
		return command.ExitNotFound
	case errors.Is(err, wellknown.ErrNetwork), errors.Is(err, skillsync.ErrTooMany):
		return command.ExitNetwork
	case errors.Is(err, wellknown.ErrExportSource):
		return command.ExitInvalid
	case errors.Is(err, registry.ErrUnauthorized), errors.Is(err, verify.ErrBadPassphrase):
		return command.ExitAuth
	case errors.Is(err, registry.ErrNotFound):
		return command.ExitNotFound
	case errors.Is(err, registry.ErrNetwork):
		return command.ExitNetwork
	case errors.Is(err, registry.ErrIntegrity), errors.Is(err, registry.ErrUnsafeArchive), errors.Is(err, registry.ErrNotSkill):
		return command.ExitIntegrity
	case errors.Is(err, registry.ErrTagExists), errors.Is(err, registry.ErrExists):
		return command.ExitModified
	case errors.As(err, &te):
		if te.Kind == toolrun.SkillNotFound {
			return command.ExitNotFound
		}
		return command.ExitToolFailed
	case errors.As(err, &le):
		if errors.Is(err, skill.ErrNotSkill) {
			return command.ExitNotFound
		}
		return command.ExitInvalid
	case errors.As(err, &ce):
		if c := ce.ExitCode(); c > 0 {
			return c
		}
	}
	return command.ExitError
}

// verifyExitCode is the exit code for verify's worst status.
func verifyExitCode(s verify.Status) int {
	switch s {
	case verify.StatusOK:
		return command.ExitOK
	case verify.StatusTampered:
		return command.ExitIntegrity
	case verify.StatusPolicy:
		return command.ExitPolicy
	case verify.StatusNetwork:
		return command.ExitNetwork
	case verify.StatusNotInstalled:
		return command.ExitUninstalled
	}
	return command.ExitError
}

// hintFor returns the recommendation that goes under an error message.
func hintFor(err error) string {
	if h := command.DiskHint(err); h != "" {
		return h
	}
	var ue *command.UsageError
	if errors.As(err, &ue) {
		return ue.Hint
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
		return command.NotFoundHint(nf)
	}
	var te *toolrun.Error
	if errors.As(err, &te) {
		return command.ToolHint(te)
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
