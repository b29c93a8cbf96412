//go:build linux

package toolrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/sandbox"
)

// TestSandboxPrivateTemp: each confined run gets its own TMPDIR, in its
// run folder under the per-user folder; the handler can use it but not
// the run folder around it (its lock, the proxy's socket) nor other
// runs' folders, sees nothing an earlier run left there, and the run
// folder is gone afterwards.
func TestSandboxPrivateTemp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	body := `import json, os
def handler(args):
    t = os.environ["TMPDIR"]
    seen = []
    for d in (t, os.path.dirname(t), os.path.dirname(os.path.dirname(t))):
        try:
            seen.append(sorted(os.listdir(d)))
        except OSError:
            seen.append(None)
    try:
        open(os.path.join(os.path.dirname(t), "lock"), "r+").close()
        lock = True
    except OSError:
        lock = False
    with open(os.path.join(t, "mine"), "w") as f:
        f.write("x")
    return {"tmp": t, "seen": seen, "lock": lock}
`
	var tmps []string
	for i := 0; i < 2; i++ {
		opts, _ := confined(t, sandbox.Default)
		res, err := runHostile(t, "scripts/h.py", body, sandbox.Permissions{}, opts, "")
		if err != nil {
			t.Fatalf("%v, stderr %q", err, res.Stderr)
		}
		var out struct {
			Tmp  string
			Seen [][]string
			Lock bool
		}
		if err := json.Unmarshal(res.Output, &out); err != nil {
			t.Fatalf("%s: %v", res.Output, err)
		}
		root, err := userTempRoot()
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(filepath.Dir(out.Tmp)) != root || !strings.HasPrefix(filepath.Base(filepath.Dir(out.Tmp)), runPrefix) {
			t.Fatalf("TMPDIR %s; want ROOT/run-*/tmp under %s", out.Tmp, root)
		}
		if len(out.Seen[0]) != 0 || out.Seen[1] != nil || out.Seen[2] != nil || out.Lock {
			t.Errorf("run %d: the handler saw %q around its TMPDIR (lock opened: %v); want an empty TMPDIR and nothing else", i, out.Seen, out.Lock)
		}
		if _, err := os.Stat(filepath.Dir(out.Tmp)); !os.IsNotExist(err) {
			t.Errorf("run folder after the run: %v; want it removed", err)
		}
		tmps = append(tmps, out.Tmp)
	}
	if tmps[0] == tmps[1] {
		t.Errorf("both runs had TMPDIR %s; want one each", tmps[0])
	}
}
