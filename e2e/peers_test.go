package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Peer clients no one here wrote, which scripts check skillpm against.
// scripts/test provides them pinned; under CI a missing one fails the
// script that needs it instead of skipping it.

// mcpJSModules returns the node_modules folder holding the pinned MCP
// TypeScript SDK ($SKILLPM_TEST_MCP_JS, set by scripts/test), passed to
// scripts as $MCP_JS, or "" when it or node is missing.
func mcpJSModules() string {
	dir := os.Getenv("SKILLPM_TEST_MCP_JS")
	if dir == "" {
		dir = filepath.Join(toolsDir(), "npm-tools", "node_modules")
	}
	if _, err := os.Stat(filepath.Join(dir, "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		return ""
	}
	if _, err := exec.LookPath("node"); err != nil {
		return ""
	}
	return dir
}

// orasBin returns the pinned ORAS CLI scripts run as $ORAS
// ($SKILLPM_ORAS_BIN, set by scripts/test), also while it is still being
// built (the [oras] condition waits for it), or "" when there is none.
func orasBin() string {
	bin := os.Getenv("SKILLPM_ORAS_BIN")
	if bin == "" {
		bin = filepath.Join(toolsDir(), "bin", "oras")
	}
	if peerPending("oras") || executable(bin) {
		return bin
	}
	return ""
}

// peerCondition answers the [mcpjs] and [oras] conditions.
func peerCondition(cond string) (ok, known bool, err error) {
	var have, how string
	switch cond {
	case "mcpjs":
		have, how = mcpJSModules(), "node and SKILLPM_TEST_MCP_JS (the MCP TypeScript SDK)"
	case "oras":
		if err := waitPeer("oras"); err != nil {
			return false, true, err
		}
		have, how = orasBin(), "SKILLPM_ORAS_BIN (the ORAS CLI)"
	default:
		return false, false, nil
	}
	if have == "" && inCI() {
		return false, true, fmt.Errorf("[%s] needs %s when CI is set: run scripts/test, which provides it", cond, how)
	}
	return have != "", true, nil
}
