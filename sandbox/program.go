package sandbox

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// ErrScript is returned by ProgramPaths for a program that is a "#!"
// script (such as a pyenv or asdf shim) rather than a binary.
var ErrScript = errors.New("program is a script")

// ProgramPaths resolves program (an absolute path) for a policy: the real
// file after symlinks, and the paths it needs to run read-only and
// executable: its installation prefix when it lives outside the system
// folders (for /opt/python/bin/python3, /opt/python) and its ELF loader.
// A "#!" script gives ErrScript: the caller should find the real
// interpreter (Python's sys.executable, Node's process.execPath).
//
// Answers are remembered per program for as long as the file it names
// stays the same (same inode, size and modification time), so that a
// second run of the same interpreter costs one stat.
func ProgramPaths(program string) (real string, runtime []string, err error) {
	st, serr := os.Stat(program)
	if v, ok := programs.Load(program); ok && serr == nil {
		if c := v.(programAnswer); os.SameFile(c.st, st) && c.st.Size() == st.Size() && c.st.ModTime().Equal(st.ModTime()) {
			return c.real, slices.Clone(c.runtime), c.err
		}
	}
	real, runtime, err = programPaths(program)
	if serr == nil && (err == nil || errors.Is(err, ErrScript)) {
		programs.Store(program, programAnswer{st: st, real: real, runtime: slices.Clone(runtime), err: err})
	}
	return real, runtime, err
}

// programs remembers ProgramPaths' answers: program -> programAnswer.
var programs sync.Map

type programAnswer struct {
	st      os.FileInfo
	real    string
	runtime []string
	err     error
}

func programPaths(program string) (real string, runtime []string, err error) {
	real, err = filepath.EvalSymlinks(program)
	if err != nil {
		return "", nil, fmt.Errorf("resolve %s: %w", program, err)
	}
	f, err := os.Open(real)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	head := make([]byte, 4)
	if _, err := io.ReadFull(f, head); err == nil && bytes.HasPrefix(head, []byte("#!")) {
		return real, nil, fmt.Errorf("%s: %w", real, ErrScript)
	}
	if bin := filepath.Dir(real); filepath.Base(bin) == "bin" {
		if prefix := filepath.Dir(bin); prefix != "/" && prefix != "/usr" && prefix != "/usr/local" {
			runtime = append(runtime, prefix)
		}
	}
	if ef, err := elf.NewFile(f); err == nil {
		for _, p := range ef.Progs {
			if p.Type != elf.PT_INTERP {
				continue
			}
			b, err := io.ReadAll(io.LimitReader(p.Open(), 4096))
			if err != nil {
				break
			}
			loader := string(bytes.TrimRight(b, "\x00"))
			runtime = append(runtime, loader)
			if r, err := filepath.EvalSymlinks(loader); err == nil && r != loader {
				runtime = append(runtime, r)
			}
		}
	}
	return real, runtime, nil
}
