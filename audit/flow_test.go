package audit

import (
	"strconv"
	"testing"
)

func TestFlow(t *testing.T) {
	for _, c := range []struct {
		file, text, want string // want: the rule and line, or "" for none
	}{
		{"a.py", "import base64\ncode = base64.b64decode(P)\nexec(code)\n", "decode-exec:3"},
		{"a.py", "raw = zlib.decompress(P)\nsrc = raw.decode('utf-8')\nexec(compile(src, 'x', 'exec'))\n", "decode-exec:3"},
		{"a.py", "raw = zlib.decompress(P)\nsrc = raw.decode('utf-8')\nexec(src)\n", "decode-exec:3"},
		{"a.py", "r = requests.get(URL)\nbody = r.text\nexec(body)\n", "download-exec:3"},
		{"a.js", "const code = await (await fetch(u)).text();\nnew Function(code)();\n", "download-exec:2"},
		{"a.js", "const s = atob(p);\neval(s);\n", "decode-exec:2"},
		{"a.ps1", "$c = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($p))\niex $c\n", "decode-exec:2"},
		{"a.py", "code = base64.b64decode(P)\nprint(code)\n", ""},
		{"a.py", "code = base64.b64decode(P)\ncode = 'print(1)'\nexec(code)\n", ""},
		{"a.md", "code = base64.b64decode(P)\nexec(code)\n", ""}, // prose: no flow
	} {
		t.Run(c.file+"/"+c.text, func(t *testing.T) {
			rep := scan(t, writeSkill(t, map[string]string{c.file: c.text}), Options{})
			got := ""
			for _, f := range rep.Findings {
				if f.Rule == "decode-exec" || f.Rule == "download-exec" {
					got = f.Rule + ":" + strconv.Itoa(f.Line)
				}
			}
			if got != c.want {
				t.Errorf("got %q, want %q (findings %+v)", got, c.want, rep.Findings)
			}
		})
	}
}
