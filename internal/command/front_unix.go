//go:build unix

package command

import (
	"fmt"
	"os"
	"syscall"
)

func handOff(full string, args []string) error {
	err := syscall.Exec(full, append([]string{args[0]}, args[1:]...), os.Environ())
	return fmt.Errorf("start %s: %w", full, err)
}
