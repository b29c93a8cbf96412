package toolrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExec(t *testing.T) {
	dir := writeSkill(t, map[string]file{
		"args.sh":     {body: "#!/bin/bash\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\necho\n"},
		"args.py":     {body: "import sys\nprint(sys.argv[1:])\n"},
		"args.mjs":    {body: "console.log(JSON.stringify(process.argv.slice(2)));\n"},
		"args.cjs":    {body: "console.log(process.argv.length - 2);\n"},
		"bin/tool":    {body: "#!/bin/sh\necho \"exe $1\"\n", mode: 0o755},
		"fail.sh":     {body: "#!/bin/bash\necho out; echo 'no such channel' >&2; exit 3\n"},
		"pwd.sh":      {body: "#!/bin/bash\npwd\n"},
		"noexec-file": {body: "#!/bin/sh\necho hi\n"},
	})
	wd := t.TempDir()
	realWD, err := filepath.EvalSymlinks(wd)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		script   string
		args     []string
		want     ExecResult
		wantKind Kind
	}{
		{script: "args.sh", args: []string{"send", "Hello World", "$(touch pwned)", "--channel=1"},
			want: ExecResult{Success: true, Stdout: "[send][Hello World][$(touch pwned)][--channel=1]\n"}},
		{script: "args.py", args: []string{"a b", ";ls"},
			want: ExecResult{Success: true, Stdout: "['a b', ';ls']\n"}},
		{script: "args.mjs", args: []string{"x", "y z"},
			want: ExecResult{Success: true, Stdout: "[\"x\",\"y z\"]\n"}},
		{script: "args.cjs", args: []string{"1", "2", "3"},
			want: ExecResult{Success: true, Stdout: "3\n"}},
		{script: "bin/tool", args: []string{"*"},
			want: ExecResult{Success: true, Stdout: "exe *\n"}},
		{script: "pwd.sh",
			want: ExecResult{Success: true, Stdout: realWD + "\n"}},
		{script: "fail.sh", wantKind: ExecutionFailed,
			want: ExecResult{Stdout: "out\n", Stderr: "no such channel\n", ExitCode: 3,
				Error: `skill "demo": script "fail.sh": exit status 3: no such channel`}},
		{script: "noexec-file", wantKind: ExecutionFailed,
			want: ExecResult{ExitCode: -1,
				Error: `skill "demo": script "noexec-file": start: fork/exec ` + filepath.Join(dir, "noexec-file") + `: permission denied`}},
		{script: "nope.sh", wantKind: ScriptNotFound,
			want: ExecResult{ExitCode: -1, Error: `skill "demo": script "nope.sh": not found in skill folder ` + dir}},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			if in := interpOf(tt.script); in != "" {
				needInterp(t, in)
			}
			s := Script{Skill: "demo", Dir: dir, Path: tt.script, Args: tt.args}
			res, err := Exec(context.Background(), s, Options{WorkDir: wd})
			if got := kindOf(t, err); got != tt.wantKind {
				t.Fatalf("kind = %q (%v); want %q", got, err, tt.wantKind)
			}
			tt.want.ErrorType = tt.wantKind
			if got := *res; got != tt.want {
				t.Errorf("result = %+v; want %+v", got, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(wd, "pwned")); err == nil {
		t.Errorf("an argument was run through a shell")
	}
}

func TestExecResultJSON(t *testing.T) {
	tests := []struct {
		res  ExecResult
		want string
	}{
		{ExecResult{Success: true, Stdout: "ok\n"}, `{"success":true,"stdout":"ok\n","stderr":"","exitCode":0}`},
		{ExecResult{Stderr: "x", ExitCode: 2, Error: "boom"}, `{"success":false,"stdout":"","stderr":"x","exitCode":2,"error":"boom"}`},
	}
	for _, tt := range tests {
		if got := string(mustJSON(t, tt.res)); got != tt.want {
			t.Errorf("json = %s; want %s", got, tt.want)
		}
	}
}

func TestExecOutputCap(t *testing.T) {
	// 200 KB on each stream: far past the pipe buffer, so the child would
	// block (and time out) if the excess were not drained.
	dir := writeSkill(t, map[string]file{"loud.sh": {body: `#!/bin/bash
head -c 200000 /dev/zero | tr '\0' a
head -c 200000 /dev/zero | tr '\0' b >&2
echo done >&2
`}})
	const limit = 1000
	res, err := Exec(context.Background(), Script{Dir: dir, Path: "loud.sh"}, Options{MaxOutput: limit})
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"stdout": res.Stdout, "stderr": res.Stderr} {
		body, ok := strings.CutSuffix(got, "\n"+truncatedMarker)
		if !ok {
			t.Errorf("%s does not end with the marker: ...%q", name, got[max(0, len(got)-40):])
		}
		if len(body) != limit {
			t.Errorf("len(%s) before marker = %d; want %d", name, len(body), limit)
		}
	}
}

func TestCappedUTF8(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"héllo", 10, "héllo"},
		{"héllo", 2, "h\n" + truncatedMarker}, // é is 2 bytes: cut at a boundary
		{"héllo", 3, "hé\n" + truncatedMarker},
		{"a€", 3, "a\n" + truncatedMarker}, // € is 3 bytes
		{"abc\n", 4, "abc\n"},
		{"abc\ndef", 4, "abc\n" + truncatedMarker},
	}
	for _, tt := range tests {
		c := &capped{max: tt.max}
		for _, b := range []byte(tt.in) { // byte by byte, as a pipe may deliver it
			c.Write([]byte{b})
		}
		got := c.String()
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("capped(%q, %d) = %q; want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestExecEnv(t *testing.T) {
	dir := writeSkill(t, map[string]file{"env.sh": {body: "#!/bin/bash\nenv\n"}})
	host := []string{
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"GITHUB_TOKEN=ghp_must_not_leak",
		"BASH_ENV=/tmp/evil.sh",
		"DISCORD_TOKEN=declared",
	}
	s := Script{Skill: "discord", Dir: dir, Path: "env.sh", Secrets: []string{"DISCORD_TOKEN"}}
	res, err := Exec(context.Background(), s, Options{Env: host, Grants: Grants{"discord": {"DISCORD_TOKEN"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, kv := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "PWD", "SHLVL", "_", "OLDPWD": // bash sets these itself
		default:
			got = append(got, kv)
		}
	}
	slices.Sort(got)
	want := []string{"DISCORD_TOKEN=[REDACTED:DISCORD_TOKEN]", "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH")}
	if !slices.Equal(got, want) {
		t.Errorf("env = %q; want %q", got, want)
	}
}

func TestExecResultIsAgentReady(t *testing.T) {
	// Whatever happens, the result marshals to the use_skill shape.
	res, err := Exec(context.Background(), Script{Skill: "ghost", Dir: filepath.Join(t.TempDir(), "ghost"), Path: "x.sh"}, Options{})
	if got, want := kindOf(t, err), SkillNotFound; got != want {
		t.Fatalf("kind = %q; want %q", got, want)
	}
	var m map[string]any
	if err := json.Unmarshal(mustJSON(t, res), &m); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"error", "errorType", "exitCode", "stderr", "stdout", "success"}; !slices.Equal(keys, want) {
		t.Errorf("keys = %v; want %v", keys, want)
	}
}
