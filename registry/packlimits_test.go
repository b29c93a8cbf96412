package registry

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/skill"
)

// writeLimSkill writes a skill named lim with the given extra files.
func writeLimSkill(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lim")
	files["SKILL.md"] = "---\nname: lim\ndescription: A skill at the limits. Use it in tests.\nversion: 1.0.0\n---\n# lim\n"
	for p, body := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Pack refuses exactly what Unpack, under the same Limits, refuses: at
// each limit the folder packs and unpacks; one past it, pack fails with
// an invalid-skill error naming the skill, the limit and a fix.
func TestPackEnforcesUnpackLimits(t *testing.T) {
	// lim/, SKILL.md (61 bytes), refs/, refs/a (10 bytes), refs/b (200 bytes): 5 entries.
	files := func() map[string]string {
		return map[string]string{"refs/a": strings.Repeat("a", 10), "refs/b": strings.Repeat("b", 200)}
	}
	const md = int64(len("---\nname: lim\ndescription: A skill at the limits. Use it in tests.\nversion: 1.0.0\n---\n# lim\n"))
	for _, tc := range []struct {
		name    string
		lim     Limits
		wantErr string // "" means packs and unpacks
	}{
		{"files at limit", Limits{MaxFiles: 5}, ""},
		{"files over", Limits{MaxFiles: 4}, `skill "lim" has more than 4 files and folders, the most installers unpack (limits.max_files)`},
		{"bytes at limit", Limits{MaxBytes: md + 210}, ""},
		{"bytes over", Limits{MaxBytes: md + 209}, fmt.Sprintf(`skill "lim" holds more than %d bytes of files, the most installers unpack (limits.max_bytes)`, md+209)},
		{"file size at limit", Limits{MaxFileSize: 200}, ""},
		{"file size over", Limits{MaxFileSize: 199}, "refs/b is 200 bytes; installers unpack files of at most 199 bytes (limits.max_file_size)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeLimSkill(t, files())
			p, err := Pack(bg, dir, PackOptions{Limits: tc.lim})
			if tc.wantErr != "" {
				var le *skill.Error
				if !errors.As(err, &le) || !strings.Contains(le.Msg, tc.wantErr) || le.Fix == "" || !strings.HasPrefix(le.Path, dir) {
					t.Fatalf("Pack: got %v; want a *skill.Error with %q, a fix and a path in %s", err, tc.wantErr, dir)
				}
				if !strings.Contains(le.Fix, "limits:") {
					t.Errorf("fix %q does not say where the limit is set", le.Fix)
				}
				// Without the check, the same folder packs and Unpack refuses it.
				var buf bytes.Buffer
				if _, err := WriteLayer(bg, &buf, dir, "lim"); err != nil {
					t.Fatal(err)
				}
				if _, err := Unpack(bg, &buf, filepath.Join(t.TempDir(), "out"), UnpackOptions{Limits: tc.lim}); !errors.Is(err, ErrUnsafeArchive) {
					t.Fatalf("Unpack of the over-limit layer: got %v; want ErrUnsafeArchive (the limits differ from pack's)", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Pack: %v", err)
			}
			defer p.Close()
			f, err := p.OpenLayer()
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := Unpack(bg, f, filepath.Join(t.TempDir(), "out"), UnpackOptions{Limits: tc.lim}); err != nil {
				t.Fatalf("Unpack of what Pack accepted: %v", err)
			}
		})
	}
}

// Names Unpack refuses are refused when packing. (Paths over maxPathLen
// are refused too, but a Linux walk fails on them before.)
func TestPackRefusesNamesInstallersRefuse(t *testing.T) {
	for name, file := range map[string]string{
		"backslash": `refs/a\b.md`,
		"escape":    "refs/a\x1b[2Jb.md",
		"newline":   "refs/a\nb.md",
		"bidi":      "refs/evil\u202egnp.sh",
		"depth":     strings.Repeat("d/", 64) + "f.md",
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeLimSkill(t, map[string]string{file: "x"})
			_, err := Pack(bg, dir, PackOptions{})
			var le *skill.Error
			if !errors.As(err, &le) || !strings.Contains(le.Msg, "installers refuse") {
				t.Fatalf("Pack: got %v; want a *skill.Error saying installers refuse it", err)
			}
			if strings.Contains(le.Fix, "limits:") {
				t.Errorf("fix %q points at limits:, though no setting changes this", le.Fix)
			}
		})
	}
}
