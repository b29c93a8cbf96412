// Command rusage runs a command and writes its wall time, CPU time and
// peak RSS to a file, for bench/compare:
//
//	rusage -o STATS -- CMD [ARGS...]
//
// STATS gets one line, "WALL_NS CPU_NS MAXRSS_BYTES". A separate process
// is needed because on Linux a child's peak RSS includes its parent's at
// the fork: measured from a large parent, every child looks as large as
// the parent. This wrapper is small, so the figure is the child's own
// (or this wrapper's few MB, whichever is larger).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"time"
)

func main() {
	stats := flag.String("o", "", "`FILE` the figures are written to")
	flag.Parse()
	if *stats == "" || flag.NArg() == 0 {
		log.Fatal("usage: rusage -o STATS -- CMD [ARGS...]")
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		log.Fatal(err)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	line := fmt.Sprintf("%d %d %d\n", wall.Nanoseconds(), cpu.Nanoseconds(), maxRSS(cmd.ProcessState))
	if werr := os.WriteFile(*stats, []byte(line), 0o644); werr != nil {
		log.Fatal(werr)
	}
	if err != nil {
		os.Exit(max(cmd.ProcessState.ExitCode(), 1))
	}
}
