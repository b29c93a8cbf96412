//go:build linux && !amd64

package sandbox

// legacyMeta: other architectures have only the *at calls.
var legacyMeta = map[int32]metaCall{}
