package agent

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// writeFiles creates files (path relative to root -> content) under root.
// A path ending in .sh is made executable.
func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// skillMD returns a SKILL.md with the given name, description and extra
// frontmatter lines.
func skillMD(name, desc, extra string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n" + extra + "---\n\n# " + name + "\n\nUse it well.\n"
}

// toolFM returns frontmatter declaring one bash tool with an entrypoint.
func toolFM(tool, entry string) string {
	return "tools:\n  - name: " + tool + "\n    description: " + tool + " tool\n    input_schema:\n      type: object\n      additionalProperties: false\n      properties:\n        text: { type: string }\n      required: [text]\n    implementation:\n      runtime: bash\n      entrypoint: " + entry + "\n"
}

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s mismatch\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}
