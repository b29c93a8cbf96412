// Package git reads skills from git repositories with the git program:
// it lists a remote's tags and branches, fetches one commit shallowly
// (and, where the server allows, without blobs outside the skill's
// folder) into a cache of bare repositories, and writes one folder of
// that commit into a staging folder through the same hostile-archive
// checks as an OCI layer.
//
// The git program, rather than a Go implementation, is used on purpose:
// it brings the user's own setup (credential helpers, GIT_ASKPASS, the
// SSH agent and ~/.ssh/config, proxies, url.insteadOf), partial clone and
// protocol v2, and it is on every machine that has repositories to read.
// A machine without git gets one clear error naming what to install.
package git
