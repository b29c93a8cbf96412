//go:build !linux

package sandbox

// NoInherit does nothing where tools are not confined (see the Linux
// version).
func NoInherit() {}
