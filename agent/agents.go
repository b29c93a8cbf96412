package agent

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Program is an agent program that reads skills from folders: Claude Code,
// Codex, Gemini CLI… Users think "install for Claude Code and Codex", not
// in folder names; Programs maps one to the other.
type Program struct {
	// ID is the agent's identifier in skills.yaml (agents:) and --agent.
	ID string `json:"id"`
	// Name is the agent's name as its makers write it.
	Name string `json:"name"`
	// ProjectDirs are the folders, relative to a project root, that the
	// agent reads skills from, in its precedence order (later wins).
	ProjectDirs []string `json:"projectDirs"`
	// UserDirs are the folders, relative to the home folder, that the
	// agent reads in every project.
	UserDirs []string `json:"userDirs"`
	// Markers are paths relative to the home folder whose existence
	// says the agent is set up on this machine.
	Markers []string `json:"-"`
	// Commands are command names whose presence on PATH says the same.
	Commands []string `json:"-"`
}

// sharedDir is the vendor-neutral folder most agents read.
const sharedDir = ".agents/skills"

// Programs is the table of agents skillpm knows, the one place their folders
// are written down. It follows each agent's documentation as of late
// 2026; README.md prints it ("Agents").
var Programs = []Program{
	{
		ID: "claude-code", Name: "Claude Code",
		ProjectDirs: []string{".claude/skills"},
		UserDirs:    []string{".claude/skills"},
		Markers:     []string{".claude"}, Commands: []string{"claude"},
	},
	{
		ID: "codex", Name: "Codex",
		ProjectDirs: []string{sharedDir},
		UserDirs:    []string{sharedDir, ".codex/skills"},
		Markers:     []string{".codex"}, Commands: []string{"codex"},
	},
	{
		ID: "gemini-cli", Name: "Gemini CLI",
		ProjectDirs: []string{sharedDir, ".gemini/skills"},
		UserDirs:    []string{sharedDir, ".gemini/skills"},
		Markers:     []string{".gemini"}, Commands: []string{"gemini"},
	},
	{
		ID: "cursor", Name: "Cursor",
		ProjectDirs: []string{sharedDir, ".cursor/skills"},
		UserDirs:    []string{".cursor/skills"},
		Markers:     []string{".cursor"}, Commands: []string{"cursor", "cursor-agent"},
	},
	{
		ID: "github-copilot", Name: "GitHub Copilot",
		ProjectDirs: []string{sharedDir, ".github/skills"},
		UserDirs:    []string{".copilot/skills"},
		Markers:     []string{".copilot"}, Commands: []string{"copilot"},
	},
	{
		ID: "goose", Name: "Goose",
		ProjectDirs: []string{sharedDir, ".goose/skills"},
		UserDirs:    []string{".config/goose/skills"},
		Markers:     []string{".config/goose"}, Commands: []string{"goose"},
	},
	{
		ID: "opencode", Name: "OpenCode",
		ProjectDirs: []string{".claude/skills", sharedDir, ".opencode/skills"},
		UserDirs:    []string{".claude/skills", ".config/opencode/skills"},
		Markers:     []string{".config/opencode"}, Commands: []string{"opencode"},
	},
	{
		ID: "windsurf", Name: "Windsurf",
		ProjectDirs: []string{".windsurf/skills"},
		UserDirs:    []string{".codeium/windsurf/skills"},
		Markers:     []string{".codeium/windsurf"}, Commands: []string{"windsurf"},
	},
}

// ErrUnknownAgent is wrapped by the error for an agent ID that is not in
// Programs.
var ErrUnknownAgent = errors.New("unknown agent")

// IDs returns the IDs of Programs, in table order.
func IDs() []string {
	ids := make([]string, len(Programs))
	for i, h := range Programs {
		ids[i] = h.ID
	}
	return ids
}

// LookupProgram returns the agent program with id, or an error wrapping
// ErrUnknownAgent that lists the known ones.
func LookupProgram(id string) (Program, error) {
	for _, h := range Programs {
		if h.ID == id {
			return h, nil
		}
	}
	return Program{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownAgent, id, strings.Join(IDs(), ", "))
}

// Dirs returns the folders the agent reads in one scope, in its
// precedence order (later wins): ProjectDirs, or UserDirs when user is set.
func (h Program) Dirs(user bool) []string {
	if user {
		return h.UserDirs
	}
	return h.ProjectDirs
}

// Reads reports whether the agent reads dir (relative to the project
// root, or to the home folder when user is set).
func (h Program) Reads(dir string, user bool) bool {
	return slices.Contains(h.Dirs(user), filepath.ToSlash(filepath.Clean(dir)))
}

// TargetsFor returns the fewest folders that every agent in ids reads:
// the shared .agents/skills for the agents that read it, and each other
// agent's first folder. user picks the user-scope folders. The order is
// stable: the shared folder's position follows the first agent that
// needs it.
func TargetsFor(ids []string, user bool) ([]string, error) {
	var out []string
	for _, id := range ids {
		h, err := LookupProgram(id)
		if err != nil {
			return nil, err
		}
		dirs := h.Dirs(user)
		pick := dirs[0]
		if slices.Contains(dirs, sharedDir) {
			pick = sharedDir
		}
		// A folder already picked for another agent may serve this one.
		served := false
		for _, o := range out {
			served = served || slices.Contains(dirs, o)
		}
		if !served && !slices.Contains(out, pick) {
			out = append(out, pick)
		}
	}
	return out, nil
}

// Detected reports whether the agent looks set up on this machine: one of
// its marker paths exists under home, or one of its programs is on PATH.
func (h Program) Detected(home string) bool {
	for _, m := range h.Markers {
		if home != "" {
			if _, err := os.Stat(filepath.Join(home, m)); err == nil {
				return true
			}
		}
	}
	for _, p := range h.Commands {
		if _, err := exec.LookPath(p); err == nil {
			return true
		}
	}
	return false
}
