//go:build linux

package toolrun

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/skillpm/skillpm/sandbox"
)

// BenchmarkSandbox measures the sandbox's overhead per run: the same
// trivial handler, with the same interpreter (a version manager's shim
// resolved to the real binary for every case), through RunTool with the
// sandbox off, in default mode (default profile), and under declared
// permissions (no subprocess, write output/** only), each started
// directly and, for comparison, through the launcher (a re-exec of
// $SKILLPM_LAUNCHER, the skillpm binary, when set; else this test
// binary), as every run was before direct starts.
func BenchmarkSandbox(b *testing.B) {
	if err := sandbox.Available(); err != nil {
		b.Fatalf("cannot enforce: %v", err)
	}
	py, err := realInterpreter("python3", RuntimePython, os.Environ())
	if err != nil {
		b.Fatal(err)
	}
	launcher := os.Getenv("SKILLPM_LAUNCHER")
	for _, rt := range []struct{ name, entry, body string }{
		{"bash", "h.sh", "#!/bin/bash\ninput=$(cat)\necho '{\"sum\":5}'\n"},
		{"python", "h.py", "def handler(args):\n    return {'sum': args['a'] + args['b']}\n"},
	} {
		dir := writeSkill(b, map[string]file{rt.entry: {body: rt.body}})
		for _, c := range []struct {
			name  string
			box   *Sandbox
			perms sandbox.Permissions
		}{
			{"off", nil, sandbox.Permissions{}},
			{"default", &Sandbox{Mode: sandbox.Default}, sandbox.Permissions{}},
			{"declared", &Sandbox{Mode: sandbox.Default}, sandbox.Permissions{Declared: true, Write: []string{"output/**"}}},
			{"default-launcher", &Sandbox{Mode: sandbox.Default, Launcher: launcher, viaLauncher: true}, sandbox.Permissions{}},
			{"declared-launcher", &Sandbox{Mode: sandbox.Default, Launcher: launcher, viaLauncher: true}, sandbox.Permissions{Declared: true, Write: []string{"output/**"}}},
		} {
			b.Run(rt.name+"/"+c.name, func(b *testing.B) {
				opts := Options{WorkDir: b.TempDir(), Env: os.Environ(), Sandbox: c.box, PythonPath: py}
				tool := Tool{Skill: "bench", Dir: dir, Name: "add", Entrypoint: rt.entry, Permissions: c.perms}
				in := json.RawMessage(`{"a":2,"b":3}`)
				for b.Loop() {
					if _, err := RunTool(context.Background(), tool, in, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
