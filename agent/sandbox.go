package agent

import (
	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/skill"
)

// Permissions converts what a skill declares into the sandbox's terms. A
// nil p (no permissions block: Agent Skills and Skill Tools skills) gives
// undeclared permissions, for which the sandbox applies its default
// profile.
func Permissions(p *skill.Permissions) sandbox.Permissions {
	if p == nil {
		return sandbox.Permissions{}
	}
	return sandbox.Permissions{
		Declared:        true,
		Read:            p.Filesystem.Read,
		Write:           p.Filesystem.Write,
		Outbound:        p.Network.Outbound,
		AllowSubprocess: p.Processes.AllowSubprocess,
	}
}
