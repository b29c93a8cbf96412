package command

import (
	"strings"
	"testing"
)

func TestToolInput(t *testing.T) {
	cases := []struct {
		name  string
		input string
		stdin string
		kvs   []string
		want  string
		err   string
	}{
		{"nothing", "", "", nil, `{}`, ""},
		{"strings and JSON", "", "", []string{"s=hello world", "n=3", "f=1.5", "b=true", "z=null", "o={\"a\":1}", "l=[1,2]", "q=\"007\"", "e=", "p=007"},
			`{"b":true,"e":"","f":1.5,"l":[1,2],"n":3,"o":{"a":1},"p":"007","q":"007","s":"hello world","z":null}`, ""},
		{"value with =", "", "", []string{"expr=a=b"}, `{"expr":"a=b"}`, ""},
		{"input then kv", `{"a":1,"b":2}`, "", []string{"b=3"}, `{"a":1,"b":3}`, ""},
		{"stdin", "-", `{"x":"y"}`, nil, `{"x":"y"}`, ""},
		{"not KEY=VALUE", "", "", []string{"oops"}, "", `argument "oops" is not KEY=VALUE`},
		{"empty key", "", "", []string{"=1"}, "", "is not KEY=VALUE"},
		{"input not an object", `[1]`, "", nil, "", "must be a JSON object"},
		{"input null", `null`, "", nil, "", "got null"},
		{"two objects", `{} {}`, "", nil, "", "single JSON object"},
		{"missing file", "@/nonexistent/x.json", "", nil, "", "read --input"},
	}
	for _, tc := range cases {
		e := &Env{Stdin: strings.NewReader(tc.stdin)}
		got, err := toolInput(e, tc.input, tc.kvs)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v; want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}
