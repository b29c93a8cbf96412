//go:build !unix

package registry

import "time"

func flushDirty() {}

func cpuTime() time.Duration { return 0 }
