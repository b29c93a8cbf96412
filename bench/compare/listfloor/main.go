//go:build unix

// Command listfloor is the stat floor bench/compare sets beside
// 'skillpm list': only what no implementation of list can avoid. For
// each discovery folder named on its command line it opens the folder,
// reads its entries, and for each skill folder (an entry not starting
// with a dot that is a folder, or a link to one) fstatat's its SKILL.md
// and tools.json relative to the open folder, as skillpm does
// (internal/statat; install.discoverIn, index.fingerprintsIn); then it
// prints one line per skill to stdout.
//
// That is all it does: it reads no install record and no memo (the
// installed-skills memo skillpm reads included), reads no SKILL.md,
// checks no health and sorts nothing, so what skillpm spends beyond it
// is what skillpm chose to do.
//
//	listfloor DIR...
package main

import (
	"bufio"
	"fmt"
	"log"
	"os"

	"golang.org/x/sys/unix"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("listfloor: ")
	out := bufio.NewWriter(os.Stdout)
	for _, dir := range os.Args[1:] {
		if err := list(out, dir); err != nil {
			log.Fatal(err)
		}
	}
	if err := out.Flush(); err != nil {
		log.Fatal(err)
	}
}

// list prints the skills of the discovery folder dir.
func list(out *bufio.Writer, dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return err
	}
	fd := int(f.Fd())
	var st unix.Stat_t
	for _, e := range ents {
		name := e.Name()
		if name[0] == '.' {
			continue
		}
		// The entry's type says "folder" without a stat; a link is
		// followed.
		if !e.IsDir() && (statAt(fd, name, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR) {
			continue
		}
		if statAt(fd, name+"/SKILL.md", &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		statAt(fd, name+"/tools.json", &st) // a skill without tools has none
		fmt.Fprintf(out, "%s\t%s\n", name, dir)
	}
	return nil
}

// statAt is fstatat(2) of name relative to the folder fd, following
// links, tried again when a signal interrupts it.
func statAt(fd int, name string, st *unix.Stat_t) error {
	for {
		if err := unix.Fstatat(fd, name, st, 0); err != unix.EINTR {
			return err
		}
	}
}
