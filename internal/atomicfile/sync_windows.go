//go:build windows

package atomicfile

import "os"

// syncDir does nothing: Windows cannot open a folder for FlushFileBuffers
// through os, and NTFS journals the rename itself.
func syncDir(*os.Root) error { return nil }
