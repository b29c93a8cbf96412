package command

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

func VersionCommand(e *Env) *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print skillpm's version",
		UsageText: "skillpm version [--json]",
		Action: func(c *cli.Context) error {
			return printVersion(e)
		},
	}
}

// version is skillpm's version: Version as the build set it, else the
// module version go install recorded ("dev" for a build from a checkout).
func version() string {
	if Version == "dev" {
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			return bi.Main.Version
		}
	}
	return Version
}

// printVersion prints skillpm's version, as text or (--json) JSON.
func printVersion(e *Env) error {
	v := version()
	if e.JSON {
		return WriteJSON(e.Stdout, map[string]string{"version": v, "build": BuildID(), "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH})
	}
	fmt.Fprintf(e.Stdout, "skillpm %s (%s, %s/%s)\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
