package agent

import (
	"encoding/json"
	"regexp"
	"testing"
)

// The patterns that ecmaPattern accepts compile in Go and, as Ajv
// compiles them (new RegExp(p, "u")), in JavaScript; the refused ones
// are Go's that JavaScript refuses (checked with node 22) or reads
// differently.
func TestEcmaPattern(t *testing.T) {
	for _, p := range []string{
		`^[a-z0-9-]+$`, `[a-z\-]`, `^\d{3}-\d{4}$`, `^\p{L}+$`, `(?:ab)+`, `(?<year>\d{4})`, `a{2,}?`, `\x41\/\.`,
		`^[^\s@]+@[^\s@]+\.[^\s@]+$`, `\bword\b`, `^(a|b)*$`, `[\w.-]+`, `^$`, `[a-]`, `x*?y+?z??`,
	} {
		if err := ecmaPattern(p); err != nil {
			t.Errorf("ecmaPattern(%q) = %v; want accepted", p, err)
		}
		if _, err := regexp.Compile(p); err != nil {
			t.Errorf("Go does not compile %q: %v", p, err)
		}
	}
	for _, p := range []string{
		`^\d{3}\-\d{4}$`, `(?i)abc`, `(?s:.)`, `abc\z`, `\Aabc`, `[[:alpha:]]`, `\pL`, `(?P<x>a)`, `\#`, `\:`, `\_`, `\ `,
		`\Qa.b\E`, `\x{41}`, `[\d-z]`, `[a-\d]`, `a{`, `{x}`, `a}`, `a]`, `[]a]`, `\b*`, `(a`, `a)`, `[a`, `*a`,
	} {
		if err := ecmaPattern(p); err == nil {
			t.Errorf("ecmaPattern(%q) = nil; want refused", p)
		}
	}
}

func TestCheckToolDropsOutputSchemasClientsCannotCompile(t *testing.T) {
	sk := &Skill{Name: "s"}
	for _, tc := range []struct {
		out  string
		drop bool
	}{
		{`{"type":"object","properties":{"tel":{"type":"string","pattern":"^\\d{3}-\\d{4}$"}}}`, false},
		{`{"type":"object","properties":{"tel":{"type":"string","pattern":"^\\d{3}\\-\\d{4}$"}}}`, true},
		{`{"type":"object","patternProperties":{"(?i)^x-":{"type":"string"}}}`, true},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`, false},
		{`{"type":"object","properties":{"a":{"$ref":"#a"}},"$defs":{"a":{"$anchor":"a","type":"string"}}}`, true},
		{`{"type":"object","properties":{"pattern":{"type":"string"}}}`, false}, // a property named pattern
	} {
		tl := Tool{Skill: sk}
		tl.Name, tl.Description, tl.OutputSchema = "t", "d", json.RawMessage(tc.out)
		u := CheckTool(HostMCP, tl)
		if (u != nil) != tc.drop || u != nil && u.LeftOut {
			t.Errorf("CheckTool(%s) = %+v; want output schema dropped %v, tool kept", tc.out, u, tc.drop)
		}
	}
}
