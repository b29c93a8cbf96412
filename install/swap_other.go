//go:build !linux

package install

func exchange(a, b string) error { return exchangeByRename(a, b) }
