package e2e

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Peers that are still being built when the suite starts. On a first run
// scripts/test starts the e2e suite as soon as the registries are there
// and builds the slow peers (cosign, the ORAS CLI) beside it, so the
// scripts that do not need them run meanwhile. It names a folder in
// SKILLPM_TOOLS_PENDING where, for each peer still building,
// NAME.pending exists until that build ends, and NAME.failed holds the
// reason when it failed. A script whose condition needs such a peer waits
// for it there.

// peerWaitLimit bounds the wait for one peer's build: a build that takes
// longer has hung (cosign, the largest, builds in minutes on two cores).
const peerWaitLimit = 45 * time.Minute

// peerPending reports whether scripts/test is still building the peer.
func peerPending(name string) bool {
	dir := os.Getenv("SKILLPM_TOOLS_PENDING")
	if dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, name+".pending"))
	return err == nil
}

// waitPeer waits until scripts/test has finished building the peer, and
// returns why the build failed if it did. Without SKILLPM_TOOLS_PENDING
// (tools built beforehand, or a script run by hand) it returns at once.
func waitPeer(name string) error {
	dir := os.Getenv("SKILLPM_TOOLS_PENDING")
	if dir == "" {
		return nil
	}
	deadline := time.Now().Add(peerWaitLimit)
	for {
		_, err := os.Stat(filepath.Join(dir, name+".pending"))
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return fmt.Errorf("waiting for scripts/test to build %s: %w", name, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("scripts/test was still building %s after %v", name, peerWaitLimit)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if msg, err := os.ReadFile(filepath.Join(dir, name+".failed")); err == nil {
		return fmt.Errorf("scripts/test could not build %s: %s", name, strings.TrimSpace(string(msg)))
	}
	return nil
}

// executable reports whether path is a regular file someone may run.
func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
