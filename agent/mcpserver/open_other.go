//go:build !unix

package mcpserver

// oNonblock is 0 where opening a file cannot wait for a writer.
const oNonblock = 0
