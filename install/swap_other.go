//go:build !linux

package install

import "os"

func exchange(root *os.Root, a, b string) error { return exchangeByRename(root, a, b) }
