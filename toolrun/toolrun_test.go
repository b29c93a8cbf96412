package toolrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	nodeDefault = `export default async function handler(args) {
  console.log("log lines go to stderr");
  return { sum: args.a + args.b, workDir: args.__workDir };
}
`
	nodeNamed = `export function count(args) { return { count: args.text.split(/\s+/).length }; }
export default function () { return "wrong export"; }
`
	nodeThrows = `export default async function () { throw new TypeError("boom"); }`
	nodeCJS    = `module.exports = (args) => ({ cjs: args.x });`

	pythonHandler = `import json, sys

def handler(args):
    print("log lines go to stderr")
    return {"sum": args["a"] + args["b"], "workDir": args["__workDir"]}

def extract_text(args):
    return args["path"].upper()

if __name__ == "__main__":
    print('{"main": "block ran"}')
    open(sys.argv[0] + ".ran", "w").close()
`
	pythonRaises = `def handler(args):
    raise ValueError("bad value")
`
	bashEcho = `#!/bin/bash
input=$(cat)
printf '{"input": %s}\n' "$input"
`
	bashText = "#!/bin/bash\ncat >/dev/null\necho 'hello world'\n"
	bashFail = "#!/bin/bash\ncat >/dev/null\necho 'first line' >&2\necho 'disk on fire' >&2\nexit 3\n"
	plainExe = "#!/bin/sh\ncat\n"
)

func TestRunTool(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`)
	tests := []struct {
		name     string
		files    map[string]file
		tool     Tool
		input    string
		want     string // JSON; $WD stands for the work dir, quoted
		wantKind Kind
		wantMsg  string // substring of the error message
	}{{
		name:  "node default export",
		files: map[string]file{"scripts/add.mjs": {body: nodeDefault}},
		tool:  Tool{Entrypoint: "scripts/add.mjs", InputSchema: schema},
		input: `{"a": 2, "b": 3}`,
		want:  `{"sum": 5, "workDir": $WD}`,
	}, {
		name:  "node named export",
		files: map[string]file{"count.js": {body: nodeNamed}},
		tool:  Tool{Runtime: "node", Entrypoint: "count.js", Handler: "count"},
		input: `{"text": "one two three"}`,
		want:  `{"count": 3}`,
	}, {
		name:  "node commonjs module.exports",
		files: map[string]file{"h.cjs": {body: nodeCJS}},
		tool:  Tool{Entrypoint: "h.cjs"},
		input: `{"x": [1, 2]}`,
		want:  `{"cjs": [1, 2]}`,
	}, {
		name:     "node missing export",
		files:    map[string]file{"count.js": {body: nodeNamed}},
		tool:     Tool{Entrypoint: "count.js", Handler: "nope"},
		wantKind: ExecutionFailed,
		wantMsg:  `handler failed: Error: module has no exported function "nope"`,
	}, {
		name:     "node throws",
		files:    map[string]file{"t.mjs": {body: nodeThrows}},
		tool:     Tool{Entrypoint: "t.mjs"},
		wantKind: ExecutionFailed,
		wantMsg:  "handler failed: TypeError: boom",
	}, {
		name:  "python handler, __main__ block not run",
		files: map[string]file{"scripts/add.py": {body: pythonHandler}},
		tool:  Tool{Entrypoint: "scripts/add.py", InputSchema: schema},
		input: `{"a": 40, "b": 2}`,
		want:  `{"sum": 42, "workDir": $WD}`,
	}, {
		name:  "python named function",
		files: map[string]file{"pdf.py": {body: pythonHandler}},
		tool:  Tool{Runtime: "python", Entrypoint: "pdf.py", Handler: "extract_text"},
		input: `{"path": "a.pdf"}`,
		want:  `"A.PDF"`,
	}, {
		name:     "python raises",
		files:    map[string]file{"r.py": {body: pythonRaises}},
		tool:     Tool{Entrypoint: "r.py"},
		wantKind: ExecutionFailed,
		wantMsg:  "handler failed: ValueError: bad value",
	}, {
		name:  "bash JSON in, JSON out",
		files: map[string]file{"echo.sh": {body: bashEcho}},
		tool:  Tool{Entrypoint: "echo.sh"},
		input: `{"q": "x y"}`,
		want:  `{"input": {"q": "x y", "__workDir": $WD}}`,
	}, {
		name:  "plain executable",
		files: map[string]file{"bin/cat-it": {body: plainExe, mode: 0o755}},
		tool:  Tool{Entrypoint: "bin/cat-it"},
		input: `{"n": 12345678901234567890}`,
		want:  `{"n": 12345678901234567890, "__workDir": $WD}`,
	}, {
		name:  "non-JSON stdout becomes a string",
		files: map[string]file{"t.sh": {body: bashText}},
		tool:  Tool{Entrypoint: "t.sh"},
		want:  `"hello world"`,
	}, {
		name:     "exit 3 uses last stderr line",
		files:    map[string]file{"f.sh": {body: bashFail}},
		tool:     Tool{Entrypoint: "f.sh"},
		wantKind: ExecutionFailed,
		wantMsg:  "exit status 3: disk on fire",
	}, {
		name:     "schema violation names tool and property",
		files:    map[string]file{"echo.sh": {body: bashEcho}},
		tool:     Tool{Entrypoint: "echo.sh", InputSchema: schema},
		input:    `{"a": "two", "b": 3}`,
		wantKind: InvalidInput,
		wantMsg:  `tool "add": invalid input: property "a": got string, want integer`,
	}, {
		name:     "schema required property",
		files:    map[string]file{"echo.sh": {body: bashEcho}},
		tool:     Tool{Entrypoint: "echo.sh", InputSchema: schema},
		input:    `{"a": 1}`,
		wantKind: InvalidInput,
		wantMsg:  "missing property 'b'",
	}, {
		name:     "input not an object",
		files:    map[string]file{"echo.sh": {body: bashEcho}},
		tool:     Tool{Entrypoint: "echo.sh"},
		input:    `[1, 2]`,
		wantKind: InvalidInput,
		wantMsg:  "input must be a JSON object, got array",
	}, {
		name:     "external $ref refused",
		files:    map[string]file{"echo.sh": {body: bashEcho}},
		tool:     Tool{Entrypoint: "echo.sh", InputSchema: json.RawMessage(`{"$ref": "file:///etc/passwd"}`)},
		wantKind: ExecutionFailed,
		wantMsg:  "input schema does not compile",
	}, {
		name:     "unknown runtime",
		files:    map[string]file{"x.rb": {body: "puts 1"}},
		tool:     Tool{Runtime: "ruby", Entrypoint: "x.rb"},
		wantKind: ExecutionFailed,
		wantMsg:  `unsupported runtime "ruby"`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if in := interpOf(tt.tool.Entrypoint); in != "" {
				needInterp(t, in)
			}
			tt.tool.Skill, tt.tool.Name = "demo", "add"
			tt.tool.Dir = writeSkill(t, tt.files)
			wd := t.TempDir()
			res, err := RunTool(context.Background(), tt.tool, json.RawMessage(tt.input), Options{WorkDir: wd})
			if res == nil {
				t.Fatal("RunTool returned a nil Result")
			}
			if got := kindOf(t, err); got != tt.wantKind {
				t.Fatalf("kind = %q (err %v, stderr %q); want %q", got, err, res.Stderr, tt.wantKind)
			}
			if tt.wantKind != "" {
				if got := err.Error(); !strings.Contains(got, tt.wantMsg) {
					t.Errorf("error = %q; want it to contain %q", got, tt.wantMsg)
				}
				env := decodeEnvelope(t, res.Output)
				if got, want := env.Error.Message, err.Error(); got != want {
					t.Errorf("envelope message = %q; want %q", got, want)
				}
				return
			}
			want := strings.ReplaceAll(tt.want, "$WD", string(mustJSON(t, wd)))
			if !jsonEqual(t, res.Output, []byte(want)) {
				t.Errorf("output = %s; want %s", res.Output, want)
			}
			if strings.Contains(string(res.Output), "log lines") {
				t.Errorf("handler logging leaked into the result: %s", res.Output)
			}
			if _, err := os.Stat(filepath.Join(tt.tool.Dir, tt.tool.Entrypoint+".ran")); err == nil {
				t.Errorf("python __main__ block ran")
			}
		})
	}
}

func TestRunToolLogsGoToStderr(t *testing.T) {
	for _, entry := range []string{"add.mjs", "add.py"} {
		t.Run(entry, func(t *testing.T) {
			needInterp(t, interpOf(entry))
			body := map[string]string{"add.mjs": nodeDefault, "add.py": pythonHandler}[entry]
			dir := writeSkill(t, map[string]file{entry: {body: body}})
			var live strings.Builder
			res, err := RunTool(context.Background(), Tool{Dir: dir, Entrypoint: entry}, json.RawMessage(`{"a":1,"b":2}`), Options{Stderr: &live})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res.Stderr, "log lines go to stderr\n"; got != want {
				t.Errorf("Stderr = %q; want %q", got, want)
			}
			if got, want := live.String(), res.Stderr; got != want {
				t.Errorf("Options.Stderr got %q; want %q", got, want)
			}
		})
	}
}

func TestRunToolEnvelope(t *testing.T) {
	dir := writeSkill(t, map[string]file{
		"f.sh":    {body: bashFail},
		"slow.sh": {body: "#!/bin/bash\nsleep 10\n"},
		"ok.sh":   {body: bashText},
	})
	tests := []struct {
		entry, input  string
		timeout       time.Duration
		wantCode      string
		wantRetriable bool
	}{
		{entry: "f.sh", wantCode: "EXECUTION_FAILED"},
		{entry: "ok.sh", input: `"str"`, wantCode: "INVALID_ARGUMENT"},
		{entry: "slow.sh", timeout: 200 * time.Millisecond, wantCode: "TIMEOUT", wantRetriable: true},
		{entry: "missing.sh", wantCode: "NOT_FOUND"},
		{entry: "../ok.sh", wantCode: "PERMISSION_DENIED"},
	}
	for _, tt := range tests {
		t.Run(tt.wantCode, func(t *testing.T) {
			tool := Tool{Skill: "s", Name: "t", Dir: dir, Entrypoint: tt.entry, Timeout: tt.timeout}
			res, err := RunTool(context.Background(), tool, json.RawMessage(tt.input), Options{})
			if err == nil {
				t.Fatalf("RunTool succeeded with %s; want an error", res.Output)
			}
			env := decodeEnvelope(t, res.Output)
			if got, want := env.Status, "error"; got != want {
				t.Errorf("status = %q; want %q", got, want)
			}
			if got, want := env.Error.Code, tt.wantCode; got != want {
				t.Errorf("code = %q; want %q", got, want)
			}
			if got, want := env.Error.Retriable, tt.wantRetriable; got != want {
				t.Errorf("retriable = %v; want %v", got, want)
			}
		})
	}
}

func TestRunToolCancel(t *testing.T) {
	dir := writeSkill(t, map[string]file{"slow.sh": {body: "#!/bin/bash\nsleep 10\n"}})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := RunTool(ctx, Tool{Dir: dir, Entrypoint: "slow.sh"}, nil, Options{})
	if got, want := kindOf(t, err), ExecutionFailed; got != want {
		t.Fatalf("kind = %q (%v); want %q", got, err, want)
	}
	if !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("error = %v; want it to wrap context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancel took %v; want well under the script's 10s", d)
	}
}

func TestRunToolEnv(t *testing.T) {
	needInterp(t, "node")
	dir := writeSkill(t, map[string]file{"env.mjs": {body: "export default () => process.env;\n"}})
	host := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=/home/agent",
		"AWS_SECRET_ACCESS_KEY=must-not-leak",
		"NODE_OPTIONS=--require=/tmp/evil.js",
		"OPENAI_API_KEY=declared",
	}
	tool := Tool{Skill: "s", Dir: dir, Entrypoint: "env.mjs", Secrets: []string{"OPENAI_API_KEY", "UNSET_SECRET"}}
	res, err := RunTool(context.Background(), tool, nil, Options{Env: host, Grants: Grants{"s": {"OPENAI_API_KEY", "UNSET_SECRET"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal(res.Output, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"PATH": os.Getenv("PATH"), "HOME": "/home/agent", "OPENAI_API_KEY": "[REDACTED:OPENAI_API_KEY]"} // received, redacted from the output
	if len(got) != len(want) {
		t.Errorf("env = %v; want exactly %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("env[%s] = %q; want %q", k, got[k], v)
		}
	}
}

func TestJSONOutput(t *testing.T) {
	tests := []struct {
		stdout string
		cut    bool
		want   string
	}{
		{`{"a":1}` + "\n", false, `{"a":1}`},
		{"  [1,2] \n", false, `[1,2]`},
		{"42", false, `42`},
		{"plain text\n", false, `"plain text"`},
		{"", false, `""`},
		{`{"a":`, false, `"{\"a\":"`},
		{"{}", true, `"{}"`}, // cut output is never trusted as JSON
	}
	for _, tt := range tests {
		if got := string(jsonOutput(tt.stdout, tt.cut)); got != tt.want {
			t.Errorf("jsonOutput(%q, %v) = %s; want %s", tt.stdout, tt.cut, got, tt.want)
		}
	}
}
