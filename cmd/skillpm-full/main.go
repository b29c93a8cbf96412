// Command skillpm-full is the whole skillpm CLI: it lints, packs, signs,
// publishes, resolves, locks, installs, verifies and mirrors skill folders
// as OCI artifacts, and runs the tools installed skills declare.
//
// Users run skillpm (cmd/skillpm), a small program that starts fast and
// runs the everyday read-only commands itself; it hands every other
// command line to this one, which is installed beside it.
package main

import "github.com/skillpm/skillpm/internal/command"

func main() { command.Main(nil, runEnv) }
