//go:build linux && !amd64

package sandbox

// legacyMeta: other architectures have only the *at calls.
var legacyMeta = map[int32]metaCall{}

// legacyCreate: other architectures have only the *at calls.
var legacyCreate = map[uintptr]int{}
