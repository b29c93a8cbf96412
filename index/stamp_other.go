//go:build !linux && !darwin

package index

import "io/fs"

// changeID is not known here: fingerprints fall back to the folder's
// modification time (see FingerprintOf).
func changeID(fs.FileInfo) (ino uint64, ctime int64, ok bool) { return 0, 0, false }
