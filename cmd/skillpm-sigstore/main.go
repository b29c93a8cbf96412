// Command skillpm-sigstore is skillpm's sigstore helper: it signs skill
// manifests and verifies their sigstore bundles for skillpm, which starts
// it when a command first needs a signature made or checked and talks to
// it over standard input and output (one JSON request and one JSON
// response per line; see package internal/sigproto). skillpm looks for
// it beside its own executable, then on PATH:
//
//	go install github.com/skillpm/skillpm/cmd/...
//
// installs both. It is a separate program so that skillpm does not link
// sigstore-go, whose package initialisers would slow every command's
// start. It is not meant to be run by hand; --version prints its
// version. It exits 0 when its input ends, 1 when the input cannot be
// read or the output written, and 2 on a bad command line.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/skillpm/skillpm/internal/sigproto"
	"github.com/skillpm/skillpm/internal/sigstorego"
)

func main() {
	switch {
	case len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "version"):
		v := "dev"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		fmt.Printf("%s %s (protocol %d, %s, %s/%s)\n", sigproto.HelperName, v, sigproto.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return
	case len(os.Args) > 1:
		fmt.Fprintf(os.Stderr, "usage: %s [--version]\nskillpm starts it and writes requests on its standard input; it is not meant to be run by hand\n", sigproto.HelperName)
		os.Exit(2)
	}
	if err := sigproto.Serve(context.Background(), os.Stdin, os.Stdout, &sigstorego.Local{}); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", sigproto.HelperName, err)
		os.Exit(1)
	}
}
