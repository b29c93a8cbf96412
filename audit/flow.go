package audit

import (
	"bytes"
	"fmt"
)

// Code decoded or downloaded into a variable on one line and run on
// another is the usual shape of a hidden payload:
//
//	code = base64.b64decode(BLOB)
//	exec(code)
//
// flow follows such variables through a script, line by line: an
// assignment from a decoder or a download taints the name (and names
// assigned from it), and exec, eval, Function or compile of a tainted
// name is decode-exec or download-exec. It is a heuristic, not data-flow
// analysis: one file, names only, in order.

var (
	flowAssign   = re(`^\s*(?:(?:const|let|var|my|local)\s+)?\$?([A-Za-z_][\w]*)\s*(?::\s*\w+\s*)?=\s*([^=\n][^\n]*)$`)
	flowDecode   = re(`\b(atob|b(16|32|64|85)decode|a85decode|decodebytes|decodestring|fromhex|unhexlify|a2b_\w+|decompress|marshal\.loads|codecs\.decode|fromCharCode|FromBase64String)\s*\(|\bBuffer\.from\([^)\n]*["'](base64|base64url|hex)["']`)
	flowDownload = re(`(?i)\b(requests\.get|httpx\.get|urlopen|fetch|axios\.get|DownloadString|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)\b\s*\(?`)
	flowRun      = re(`(?i)\b(?:(?:exec|eval|Function|compile)\s*\(\s*(?:await\s+)?|(?:invoke-expression|iex)\s*\(?\s*)\$?([A-Za-z_]\w*)\b`)
	flowWord     = re(`\$?[A-Za-z_]\w*`)
)

// maxTainted bounds the names flow follows in one file.
const maxTainted = 64

type taint struct {
	rule string // decode-exec or download-exec
	line int
}

// flow reports exec of decoded or downloaded variables in a script.
func (f *file) flow() {
	if f.sc != inScript || !(bytes.Contains(f.data, []byte("exec")) || bytes.Contains(f.data, []byte("eval")) ||
		bytes.Contains(f.data, []byte("Function")) || bytes.Contains(f.data, []byte("compile")) || bytes.Contains(f.data, []byte("iex")) ||
		bytes.Contains(f.data, []byte("Invoke-Expression"))) {
		return
	}
	tainted := map[string]taint{}
	n := 0
	for start := 0; start < len(f.data); {
		end := bytes.IndexByte(f.data[start:], '\n')
		if end < 0 {
			end = len(f.data)
		} else {
			end += start
		}
		n++
		line := f.data[start:end]
		if len(line) <= longLine {
			f.flowLine(line, start, n, tainted)
		}
		start = end + 1
	}
}

func (f *file) flowLine(line []byte, start, n int, tainted map[string]taint) {
	if len(tainted) > 0 && runsCode(line) {
		// Calls nest (exec(compile(src))): each search resumes at the
		// name the last one found.
		for at, k := 0, 0; at < len(line) && k < 8; k++ {
			m := flowRun().FindSubmatchIndex(line[at:])
			if m == nil {
				break
			}
			name := string(line[at+m[2] : at+m[3]])
			if t, ok := tainted[name]; ok {
				f.flowReport(t, n, start+at+m[0], string(line[at+m[0]:at+m[1]]), name)
				break
			}
			at += m[2]
		}
	}
	if bytes.IndexByte(line, '=') < 0 || len(tainted) >= maxTainted {
		return
	}
	m := flowAssign().FindSubmatchIndex(line)
	if m == nil {
		return
	}
	name, rhs := string(line[m[2]:m[3]]), line[m[4]:m[5]]
	switch {
	case flowDecode().Match(rhs):
		tainted[name] = taint{"decode-exec", n}
	case flowDownload().Match(rhs):
		tainted[name] = taint{"download-exec", n}
	default:
		for _, w := range flowWord().FindAll(rhs, 16) {
			if t, ok := tainted[string(bytes.TrimPrefix(w, []byte("$")))]; ok {
				tainted[name] = t
				return
			}
		}
		delete(tainted, name) // reassigned to something else
	}
}

// runsCode is a quick look for a call flowRun could match.
func runsCode(line []byte) bool {
	for _, w := range [][]byte{[]byte("exec"), []byte("eval"), []byte("Function"), []byte("compile"), []byte("iex"), []byte("Invoke-Expression"), []byte("IEX")} {
		if bytes.Contains(line, w) {
			return true
		}
	}
	return false
}

func (f *file) flowReport(t taint, n, off int, match, name string) {
	ri := ruleIndex(t.rule)
	if f.matched[[2]int{ri, n}] || f.s.perRule[[2]string{f.rel, t.rule}] >= maxPerRuleFile {
		return
	}
	what := "decoded"
	if t.rule == "download-exec" {
		what = "downloaded"
	}
	f.add(t.rule, off, shorten(f.source(off, off+len(match))),
		fmt.Sprintf("runs %s, which line %d %s: %s", name, t.line, what, rules[ri].Summary))
}

// ruleIndex is the index of rule id in the table.
func ruleIndex(id string) int {
	for i := range rules {
		if rules[i].ID == id {
			return i
		}
	}
	panic("audit: no rule " + id)
}
