//go:build unix

package mcpserver

import "syscall"

// oNonblock makes opening a named pipe return at once instead of waiting
// for a writer; regular files are read as usual.
const oNonblock = syscall.O_NONBLOCK
