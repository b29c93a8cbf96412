package toolrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkRunTool compares RunTool on a trivial handler with exec'ing the
// interpreter on an equivalent stand-alone script: the difference is
// toolrun's overhead (validation, path checks, wrapper, process group,
// capped pipes). Runtimes whose interpreter is missing are skipped.
func BenchmarkRunTool(b *testing.B) {
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`)
	input := json.RawMessage(`{"a":2,"b":3}`)
	dir := writeSkill(b, map[string]file{
		"add.sh":  {body: "#!/bin/bash\ninput=$(cat)\necho '{\"sum\":5}'\n"},
		"add.mjs": {body: "export default (args) => ({ sum: args.a + args.b });\n"},
		// The stand-alone Node equivalent of what the wrapper does.
		"direct.mjs": {body: `import handler from "./add.mjs";
let s = ""; for await (const c of process.stdin) s += c;
console.log(JSON.stringify(await handler(JSON.parse(s))));
`},
		// The Skill Tools Python convention: the __main__ block is the
		// stand-alone way to run the same handler.
		"add.py": {body: `import json, sys
def handler(args):
    return {"sum": args["a"] + args["b"]}
if __name__ == "__main__":
    print(json.dumps(handler(json.load(sys.stdin))))
`},
	})
	runtimes := []struct {
		name, interp, entry, direct string
	}{
		{"bash", "bash", "add.sh", "add.sh"},
		{"node", "node", "add.mjs", "direct.mjs"},
		{"python", "python3", "add.py", "add.py"},
	}
	for _, rt := range runtimes {
		interp, err := exec.LookPath(rt.interp)
		if err != nil {
			b.Run(rt.name, func(b *testing.B) { b.Skipf("%s not installed", rt.interp) })
			continue
		}
		env, _ := childEnv(os.Environ(), nil, nil)
		opts := Options{WorkDir: b.TempDir(), NodePath: interp, PythonPath: interp}
		tool := Tool{Skill: "bench", Name: "add", Dir: dir, Entrypoint: rt.entry, InputSchema: schema}
		b.Run(rt.name+"/RunTool", func(b *testing.B) {
			for b.Loop() {
				res, err := RunTool(context.Background(), tool, input, opts)
				if err != nil {
					b.Fatal(err)
				}
				checkSum(b, res.Output)
			}
		})
		b.Run(rt.name+"/direct", func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(interp, filepath.Join(dir, rt.direct))
				cmd.Stdin = bytes.NewReader(input)
				cmd.Env = env // same minimal env, else e.g. NODE_EXTRA_CA_CERTS skews node
				out, err := cmd.Output()
				if err != nil {
					b.Fatal(err)
				}
				checkSum(b, out)
			}
		})
	}
}

func checkSum(b *testing.B, out []byte) {
	b.Helper()
	var got struct{ Sum int }
	if err := json.Unmarshal(out, &got); err != nil || got.Sum != 5 {
		b.Fatalf("output = %s; want {\"sum\": 5}", out)
	}
}
