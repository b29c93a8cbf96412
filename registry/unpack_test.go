package registry

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/skillpm/skillpm/internal/filesums"
)

const skillMD = "---\nname: pdf\ndescription: PDF things. Use it on PDFs.\n---\nbody\n"

// bomb is a tar+gzip of a few KB that expands to a size byte file of
// zeros.
func bomb(t *testing.T, size int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "pdf/SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(skillMD))})
	tw.Write([]byte(skillMD))
	if err := tw.WriteHeader(&tar.Header{Name: "pdf/zeros", Typeflag: tar.TypeReg, Mode: 0o644, Size: size}); err != nil {
		t.Fatal(err)
	}
	zero := make([]byte, 1<<20)
	for n := int64(0); n < size; n += int64(len(zero)) {
		tw.Write(zero)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// paxBomb expands through metadata rather than file content: n entries
// with a 900 KB PAX record each and no body.
func paxBomb(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "pdf/SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(skillMD))})
	tw.Write([]byte(skillMD))
	for i := range n {
		hdr := &tar.Header{Name: fmt.Sprintf("pdf/d%d/", i), Typeflag: tar.TypeDir, Mode: 0o755,
			PAXRecords: map[string]string{"comment": strings.Repeat("z", 900<<10)}}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// TestUnpackHostile runs every hostile archive of issue item 8 and
// checks the error and that nothing was written anywhere: not the
// target, not beside it, not above it.
func TestUnpackHostile(t *testing.T) {
	ok := entry{name: "pdf/SKILL.md", body: skillMD}
	tests := []struct {
		name    string
		data    []byte
		limits  Limits
		digest  digest.Digest
		wantIs  error
		wantMsg string
	}{
		{"dot-dot entry", archive(t, ok, entry{name: "pdf/../../evil", body: "x"}), Limits{}, "", ErrUnsafeArchive, `"pdf/../../evil": path contains ".."`},
		{"leading dot-dot", archive(t, ok, entry{name: "../evil", body: "x"}), Limits{}, "", ErrUnsafeArchive, `path contains ".."`},
		{"absolute entry", archive(t, ok, entry{name: "/tmp/evil", body: "x"}), Limits{}, "", ErrUnsafeArchive, "absolute path"},
		{"backslash entry", archive(t, ok, entry{name: `..\evil`, body: "x"}), Limits{}, "", ErrUnsafeArchive, "backslash"},
		{"escape sequence in a name", archive(t, ok, entry{name: "pdf/\x1b]0;owned\x07\x1b[2J.md", body: "x"}), Limits{}, "", ErrUnsafeArchive, "control character U+001B"},
		{"newline in a name", archive(t, ok, entry{name: "pdf/a\nb.md", body: "x"}), Limits{}, "", ErrUnsafeArchive, "control character U+000A"},
		{"C1 control in a name", archive(t, ok, entry{name: "pdf/a\u009bb.md", body: "x"}), Limits{}, "", ErrUnsafeArchive, "control character U+009B"},
		{"bidi override in a name", archive(t, ok, entry{name: "pdf/evil\u202egnp.sh", body: "x"}), Limits{}, "", ErrUnsafeArchive, "control character U+202E"},
		{"name not UTF-8", archive(t, ok, entry{name: "pdf/a\xffb.md", body: "x"}), Limits{}, "", ErrUnsafeArchive, "not UTF-8"},
		{"escape sequence in a link target", archive(t, ok, entry{name: "pdf/l", typ: tar.TypeSymlink, link: "SKILL.md\x1b[2J"}), Limits{}, "", ErrUnsafeArchive, "symlink target contains the control character U+001B"},
		{"absolute symlink", archive(t, ok, entry{name: "pdf/etc", typ: tar.TypeSymlink, link: "/etc"}), Limits{}, "", ErrUnsafeArchive, `symlink to absolute path "/etc"`},
		{"escaping symlink", archive(t, ok, entry{name: "pdf/up", typ: tar.TypeSymlink, link: "../../../.."}), Limits{}, "", ErrUnsafeArchive, "leaves the skill"},
		{"write through symlink", archive(t, ok,
			entry{name: "pdf/a/b/c/d", typ: tar.TypeSymlink, link: "../../.."},
			entry{name: "pdf/a/b/c/d/e", typ: tar.TypeSymlink, link: "../../x"},
			entry{name: "pdf/a/b/c/d/e/f", body: "x"}), Limits{}, "", ErrUnsafeArchive, `goes through the symlink "pdf/a/b/c/d"`},
		{"dangling escape after chain", archive(t, ok,
			entry{name: "pdf/a/b/d", typ: tar.TypeSymlink, link: ".."},
			entry{name: "pdf/a/b/d/e", typ: tar.TypeSymlink, link: "../../../x"}), Limits{}, "", ErrUnsafeArchive, "symlink"},
		{"symlink through a helper beside the skill", archive(t, ok,
			entry{name: "pdf/id_rsa", body: "decoy"},
			entry{name: ".ssh", typ: tar.TypeSymlink, link: "pdf"},
			entry{name: "pdf/key", typ: tar.TypeSymlink, link: "../.ssh/id_rsa"}), Limits{}, "", ErrUnsafeArchive, `symlink to "../.ssh/id_rsa" leaves the skill`},
		{"symlink into a helper beside the skill", archive(t, ok,
			entry{name: "helper/", typ: tar.TypeDir},
			entry{name: "pdf/in", typ: tar.TypeSymlink, link: "sub/../../helper"}), Limits{}, "", ErrUnsafeArchive, "leaves the skill"},
		{"escaping hardlink", archive(t, ok, entry{name: "pdf/passwd", typ: tar.TypeLink, link: "../../../etc/passwd"}), Limits{}, "", ErrUnsafeArchive, "hardlink"},
		{"hardlink to absolute", archive(t, ok, entry{name: "pdf/passwd", typ: tar.TypeLink, link: "/etc/passwd"}), Limits{}, "", ErrUnsafeArchive, "hardlink"},
		{"hardlink to nothing earlier", archive(t, entry{name: "pdf/SKILL.md", typ: tar.TypeLink, link: "pdf/later"}, entry{name: "pdf/later", body: skillMD}), Limits{}, "", ErrUnsafeArchive, "not an earlier file"},
		{"char device", archive(t, ok, entry{name: "pdf/null", typ: tar.TypeChar}), Limits{}, "", ErrUnsafeArchive, "device files"},
		{"block device", archive(t, ok, entry{name: "pdf/sda", typ: tar.TypeBlock}), Limits{}, "", ErrUnsafeArchive, "device files"},
		{"fifo", archive(t, ok, entry{name: "pdf/pipe", typ: tar.TypeFifo}), Limits{}, "", ErrUnsafeArchive, "named pipes"},
		{"too many files", archive(t, ok, entry{name: "pdf/a", body: "a"}, entry{name: "pdf/b", body: "b"}, entry{name: "pdf/c", body: "c"}), Limits{MaxFiles: 3}, "", ErrUnsafeArchive, "more than 3 entries"},
		{"too many bytes", archive(t, ok, entry{name: "pdf/a", body: strings.Repeat("a", 100)}, entry{name: "pdf/b", body: strings.Repeat("b", 100)}), Limits{MaxBytes: 200}, "", ErrUnsafeArchive, "exceeds the 200 byte limit"},
		{"file too big", archive(t, ok, entry{name: "pdf/a", body: strings.Repeat("a", 100)}), Limits{MaxFileSize: 80}, "", ErrUnsafeArchive, "over the 80 byte limit"},
		{"gzip bomb in a file", bomb(t, 64<<20), Limits{MaxBytes: 1 << 20}, "", ErrUnsafeArchive, "over the 1048576 byte limit"},
		{"gzip bomb in metadata", paxBomb(t, 5), Limits{MaxBytes: 1 << 20, MaxFiles: 10}, "", ErrUnsafeArchive, "gzip bomb"},
		{"duplicate entry", archive(t, ok, ok), Limits{}, "", ErrUnsafeArchive, "duplicate entry"},
		{"symlink then file", archive(t, ok, entry{name: "pdf/x", typ: tar.TypeSymlink, link: "SKILL.md"}, entry{name: "pdf/x", body: "overwrite"}), Limits{}, "", ErrUnsafeArchive, "duplicate entry"},
		{".git folder", archive(t, ok, entry{name: "pdf/.git/config", body: "[core]\n\tfsmonitor = evil\n"}), Limits{}, "", ErrUnsafeArchive, "never holds a .git folder"},
		{"gitlink file in another case", archive(t, ok, entry{name: "pdf/sub/.GiT", body: "gitdir: /tmp/x\n"}), Limits{}, "", ErrUnsafeArchive, "never holds a .git folder"},
		{"file then a folder of its name", archive(t, ok, entry{name: "pdf/x", body: "file"}, entry{name: "pdf/x/y", body: "inside"}), Limits{}, "", ErrUnsafeArchive, `goes through the file "pdf/x"`},
		{"file then a folder entry of its name", archive(t, ok, entry{name: "pdf/x", body: "file"}, entry{name: "pdf/x/", typ: tar.TypeDir}), Limits{}, "", ErrUnsafeArchive, "duplicate entry"},
		{"a name longer than a file system allows", archive(t, ok, entry{name: "pdf/" + strings.Repeat("n", 256), body: "x"}), Limits{}, "", ErrUnsafeArchive, "longer than 255 bytes"},
		{"nesting deeper than any skill", archive(t, ok, entry{name: "pdf/" + strings.Repeat("d/", 64) + "f", body: "x"}), Limits{}, "", ErrUnsafeArchive, "nested more than 64 folders deep"},
		{"not an archive", []byte("this is not a tarball at all, not even close; padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding"), Limits{}, "", ErrUnsafeArchive, "not a valid tar"},
		{"broken gzip", append([]byte{0x1f, 0x8b}, bytes.Repeat([]byte{0xff}, 64)...), Limits{}, "", ErrUnsafeArchive, "gzip"},
		{"digest mismatch", archive(t, ok), Limits{}, digest.FromString("something else"), ErrIntegrity, "layer digest is"},
		{"no SKILL.md", archive(t, entry{name: "pdf/README.md", body: "x"}), Limits{}, "", ErrNotSkill, "no SKILL.md"},
		{"two skills", archive(t, ok, entry{name: "other/SKILL.md", body: skillMD}), Limits{}, "", ErrNotSkill, "2 skill folders"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outer := t.TempDir()
			parent := filepath.Join(outer, "p")
			if err := os.Mkdir(parent, 0o755); err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(parent, "out")
			_, err := Unpack(bg, bytes.NewReader(tt.data), dst, UnpackOptions{Limits: tt.limits, Digest: tt.digest})
			if !errors.Is(err, tt.wantIs) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("Unpack: %v; want %v containing %q", err, tt.wantIs, tt.wantMsg)
			}
			if got := listTree(t, outer); !slices.Equal(got, []string{"p"}) {
				t.Errorf("after a failed unpack the tree holds %q; want only the empty parent", got)
			}
			if _, err := os.Lstat(filepath.Join(filepath.Dir(outer), "evil")); err == nil {
				t.Errorf("evil written above the target")
			}
		})
	}
}

func TestUnpackRoots(t *testing.T) {
	tests := []struct {
		name     string
		entries  []entry
		wantRoot string
	}{
		{"rooted at name", []entry{{name: "pdf/", typ: tar.TypeDir}, {name: "pdf/SKILL.md", body: skillMD}, {name: "pdf/scripts/run.sh", body: "#!/bin/sh\n", mode: 0o6755}}, "pdf"},
		{"at the top", []entry{{name: "SKILL.md", body: skillMD}, {name: "scripts/run.sh", body: "#!/bin/sh\n", mode: 0o6755}}, ""},
		{"dot-slash prefix", []entry{{name: "./", typ: tar.TypeDir}, {name: "./SKILL.md", body: skillMD}, {name: "./scripts/run.sh", body: "#!/bin/sh\n", mode: 0o4755}}, ""},
		{"dot-slash and name", []entry{{name: "./pdf/SKILL.md", body: skillMD}, {name: "./pdf/scripts/run.sh", body: "#!/bin/sh\n", mode: 0o2755}, {name: "./pdf/scripts/same", typ: tar.TypeLink, link: "./pdf/scripts/run.sh"}, {name: "./pdf/link", typ: tar.TypeSymlink, link: "scripts/run.sh"}}, "pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "a", "b", "out")
			rec := &filesums.Recorder{}
			st, err := Unpack(filesums.With(bg, rec), bytes.NewReader(archive(t, tt.entries...)), dst, UnpackOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkSums(t, dst, rec.Get(dst))
			if st.Root != tt.wantRoot {
				t.Errorf("Root = %q; want %q", st.Root, tt.wantRoot)
			}
			if b, err := os.ReadFile(filepath.Join(dst, "SKILL.md")); err != nil || string(b) != skillMD {
				t.Errorf("SKILL.md = %q, %v; want the skill's", b, err)
			}
			fi, err := os.Stat(filepath.Join(dst, "scripts", "run.sh"))
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode(); got&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) != 0 || got&0o100 == 0 {
				t.Errorf("run.sh mode = %v; want executable without setuid/setgid", got)
			}
			if got := listTree(t, filepath.Dir(dst)); !slices.Equal(got, []string{"out"}) && !strings.HasPrefix(got[0], "out") {
				t.Errorf("beside the target: %q; want only out", got)
			}
		})
	}
}

func TestUnpackExistingTarget(t *testing.T) {
	data := archive(t, entry{name: "pdf/SKILL.md", body: skillMD})
	dst := t.TempDir()
	if err := os.WriteFile(filepath.Join(dst, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Unpack(bg, bytes.NewReader(data), dst, UnpackOptions{}); !errors.Is(err, ErrExists) {
		t.Fatalf("Unpack into a non-empty folder: %v; want ErrExists", err)
	}
	if _, err := os.Stat(filepath.Join(dst, "keep.txt")); err != nil {
		t.Errorf("keep.txt was lost: %v", err)
	}
	if _, err := Unpack(bg, bytes.NewReader(data), dst, UnpackOptions{Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if got := listTree(t, dst); !slices.Equal(got, []string{"SKILL.md"}) {
		t.Errorf("after overwrite: %q; want [SKILL.md]", got)
	}
	// An empty folder is filled without Overwrite.
	empty := t.TempDir()
	if _, err := Unpack(bg, bytes.NewReader(data), empty, UnpackOptions{}); err != nil {
		t.Errorf("Unpack into an empty folder: %v", err)
	}
}

// TestUnpackLeavesNothingBeside checks that staging and set-aside folders
// are gone after an unpack, whether the content is rooted at <name>/ or
// at the top, into a new folder or over an old one.
func TestUnpackLeavesNothingBeside(t *testing.T) {
	for _, layout := range []struct {
		name string
		data []byte
	}{
		{"rooted", archive(t, entry{name: "pdf/SKILL.md", body: skillMD}, entry{name: "pdf/notes.txt", body: "x"})},
		{"top", archive(t, entry{name: "SKILL.md", body: skillMD}, entry{name: "notes.txt", body: "x"})},
	} {
		t.Run(layout.name, func(t *testing.T) {
			parent := t.TempDir()
			dst := filepath.Join(parent, "pdf")
			for _, overwrite := range []bool{false, true} {
				if _, err := Unpack(bg, bytes.NewReader(layout.data), dst, UnpackOptions{Overwrite: overwrite}); err != nil {
					t.Fatal(err)
				}
				if got := listTree(t, dst); !slices.Equal(got, []string{"SKILL.md", "notes.txt"}) {
					t.Errorf("overwrite=%v: dst holds %q", overwrite, got)
				}
				entries, _ := os.ReadDir(parent)
				if len(entries) != 1 {
					var names []string
					for _, e := range entries {
						names = append(names, e.Name())
					}
					t.Errorf("overwrite=%v: beside dst: %q; want only pdf", overwrite, names)
				}
			}
		})
	}
}

// TestUnpackTopFolderFallback covers archives whose first entry is a
// folder but which are not rooted at it: what was staged with the folder
// stripped moves back under it, and the result is as if nothing had been
// stripped.
func TestUnpackTopFolderFallback(t *testing.T) {
	dir := func(n string) entry { return entry{name: n, typ: tar.TypeDir} }
	file := func(n, body string) entry { return entry{name: n, body: body} }
	tests := []struct {
		name     string
		entries  []entry
		wantRoot string
		wantTree []string // of dst
		wantErr  string
	}{
		{"folder first, SKILL.md at the top",
			[]entry{dir("docs/"), file("docs/guide.md", "g"), file("SKILL.md", skillMD)},
			"", []string{"SKILL.md", "docs", "docs/guide.md"}, ""},
		{"file in a folder first, SKILL.md at the top",
			[]entry{file("docs/guide.md", "g"), {name: "docs/again", typ: tar.TypeLink, link: "docs/guide.md"}, file("SKILL.md", skillMD), {name: "docs/link", typ: tar.TypeSymlink, link: "guide.md"}},
			"", []string{"SKILL.md", "docs", "docs/again", "docs/guide.md", "docs/link"}, ""},
		{"the folder's name inside it, then the skill beside it",
			[]entry{dir("pdf/"), dir("pdf/pdf/"), file("pdf/pdf/x", "x"), file("other/SKILL.md", skillMD), file("other/y", "y")},
			"other", []string{"SKILL.md", "y"}, ""},
		{"two skill folders",
			[]entry{file("a/SKILL.md", skillMD), file("b/SKILL.md", skillMD)},
			"", nil, "content holds 2 skill folders (a, b)"},
		{"one folder without SKILL.md",
			[]entry{dir("pdf/"), file("pdf/README.md", "r")},
			"", nil, "no SKILL.md at the top of the content or in its one folder"},
		{"one folder with SKILL.md deeper down",
			[]entry{file("pdf/sub/SKILL.md", skillMD)},
			"", nil, "no SKILL.md at the top of the content or in its one folder"},
		{"symlink out of the stripped folder",
			[]entry{file("pdf/SKILL.md", skillMD), {name: "pdf/up", typ: tar.TypeSymlink, link: "../x"}},
			"", nil, `symlink to "../x" leaves the skill`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dst := filepath.Join(parent, "out")
			rec := &filesums.Recorder{}
			st, err := Unpack(filesums.With(bg, rec), bytes.NewReader(archive(t, tt.entries...)), dst, UnpackOptions{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Unpack: %v; want an error containing %q", err, tt.wantErr)
				}
				if rec.Get(dst) != nil {
					t.Errorf("a failed unpack reported sums")
				}
				if got := listTree(t, parent); len(got) != 0 {
					t.Errorf("left behind: %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.Root != tt.wantRoot {
				t.Errorf("Root = %q; want %q", st.Root, tt.wantRoot)
			}
			checkSums(t, dst, rec.Get(dst))
			if got := listTree(t, dst); !slices.Equal(got, tt.wantTree) {
				t.Errorf("dst holds %q; want %q", got, tt.wantTree)
			}
			if entries, _ := os.ReadDir(parent); len(entries) != 1 {
				t.Errorf("beside dst: %d entries; want only out", len(entries))
			}
		})
	}
}

// checkSums checks that the sums an unpack reported are those of the
// regular files in dst, every one of them and nothing else.
func checkSums(t *testing.T, dst string, sums map[string]filesums.Sum) {
	t.Helper()
	want := map[string]filesums.Sum{}
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dst, p)
		want[filepath.ToSlash(rel)] = filesums.Sum{SHA256: sha256.Sum256(b), Size: int64(len(b))}
		return nil
	})
	if !maps.Equal(sums, want) {
		t.Errorf("reported sums %v; want those of the files in %s: %v", sums, dst, want)
	}
}
