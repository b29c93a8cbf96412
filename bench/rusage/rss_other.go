//go:build !unix

package main

import "os"

// maxRSS is not reported on this platform.
func maxRSS(*os.ProcessState) int64 { return 0 }
