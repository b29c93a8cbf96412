//go:build !linux

package registry

import (
	"os"
)

const unnamedSupported = false

func openUnnamed(string) (*os.File, error) { return nil, errUnnamedUnsupported }

func linkUnnamed(*os.File, string) error { return errUnnamedUnsupported }
