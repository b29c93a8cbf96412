//go:build unix

// Command checkfloor is the stat floor bench/compare sets beside a warm
// 'skillpm install': the least a check that notices an in-place edit of
// an installed skill must do. It reads the file named on its command
// line, which bench/compare writes by walking the targets once before
// measuring, and stats every path it lists, once each, relative to its
// open target folder (fstatat, as skillpm stats: internal/statat).
//
// The file holds one block per target, blocks separated by an empty
// line: the target folder (relative to the working folder) on the first
// line, then every folder and file its installed skills hold, relative
// to the target, one per line.
//
// That is all it does: it compares the answers with nothing (a real
// check would compare them with the stamps it recorded, which it would
// also have to read), lists no folder (so a file added to a skill goes
// unnoticed) and reads no lock. It prints how many paths it stat'ed.
//
//	checkfloor PATHS
package main

import (
	"fmt"
	"log"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("checkfloor: ")
	if len(os.Args) != 2 {
		log.Fatal("usage: checkfloor PATHS")
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	n := 0
	for block := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n\n") {
		target, paths, _ := strings.Cut(block, "\n")
		c, err := check(target, paths)
		if err != nil {
			log.Fatal(err)
		}
		n += c
	}
	fmt.Printf("%d paths\n", n)
}

// check stats the newline-separated paths relative to the folder target
// and returns how many it stat'ed.
func check(target, paths string) (int, error) {
	f, err := os.Open(target)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fd := int(f.Fd())
	var st unix.Stat_t
	n := 0
	for p := range strings.Lines(paths) {
		p = strings.TrimSuffix(p, "\n")
		for {
			err = unix.Fstatat(fd, p, &st, unix.AT_SYMLINK_NOFOLLOW)
			if err != unix.EINTR {
				break
			}
		}
		if err != nil {
			return n, fmt.Errorf("%s/%s: %w", target, p, err)
		}
		n++
	}
	return n, nil
}
