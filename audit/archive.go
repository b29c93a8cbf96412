package audit

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"io"
	"path"
	"strings"
)

// maxMembers bounds the members of one archive that are read.
const maxMembers = 1000

// archive matches the rules against the text files inside a gzip, tar or
// zip file the skill carries: a script packed in assets/tools.tar.gz
// runs as well as one beside SKILL.md once a step extracts it. Findings
// are reported at the archive, naming the member. What is read is
// bounded as decoded literals are (maxDecoded bytes, maxMembers members).
func (f *file) archive() {
	data := f.data
	budget := maxDecoded
	f.budget = &budget
	gz := len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b
	if gz {
		if data = inflate(data, budget); data == nil {
			return
		}
	}
	switch {
	case len(data) > 262 && string(data[257:262]) == "ustar":
		tr := tar.NewReader(bytes.NewReader(data))
		for n := 0; n < maxMembers && budget > 0; n++ {
			h, err := tr.Next()
			if err != nil {
				return
			}
			if h.Typeflag == tar.TypeReg {
				b, _ := io.ReadAll(io.LimitReader(tr, int64(budget)))
				f.member(h.Name, b)
			}
		}
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for n, zf := range zr.File {
			if n >= maxMembers || budget <= 0 {
				return
			}
			rc, err := zf.Open()
			if err != nil {
				continue
			}
			b, _ := io.ReadAll(io.LimitReader(rc, int64(budget)))
			rc.Close()
			f.member(zf.Name, b)
		}
	case gz:
		f.member(strings.TrimSuffix(path.Base(f.rel), ".gz"), data)
	}
}

// member matches the rules against one archived file, when it is text.
func (f *file) member(name string, b []byte) {
	*f.budget -= len(b)
	if !isText(b) {
		return
	}
	sc, shell := f.s.classify(name, b)
	f.nested(b, sc, shell, 0, "archive member "+name, 1)
}
