package selfschema

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
)

// A number math/big cannot hold (an exponent past 1e6) made the validator
// compare a nil *big.Rat and panic, taking 'skillpm mcp' down with one
// tools/call; one just inside took tens of milliseconds. Such numbers
// fail validation, at once.
func TestValidateHugeNumbers(t *testing.T) {
	var many []string
	for i := range 30 {
		many = append(many, fmt.Sprintf("%de9999999", i+1))
	}
	for _, tc := range []struct {
		schema, instance string
		want             string
	}{
		{`{"properties":{"x":{"minimum":0}}}`, `{"x":1e9999999}`, "is out of range"},
		{`{"properties":{"x":{"maximum":1.5}}}`, `{"x":-1e-9999999}`, "is out of range"},
		{`{"properties":{"x":{"exclusiveMinimum":0}}}`, `{"x":1E+9999999}`, "is out of range"},
		{`{"properties":{"x":{"items":{"multipleOf":3}}}}`, `{"x":[` + strings.Repeat("1e999999,", 99) + `1e999999]}`, "is out of range"},
		{`{"properties":{"x":{"minimum":0}}}`, `{"x":1` + strings.Repeat("0", 20000) + `}`, "is out of range"},
		{`{"properties":{"x":{"type":"array","uniqueItems":true}}}`, `{"x":[` + strings.Join(many, ",") + `,1e9999999]}`, "are equal"},
	} {
		sch, err := Compile("mem:///s.json", []byte(tc.schema), Options{DefaultDraft: jsonschema.Draft2020})
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(tc.instance)))
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s on %.40s: panic %v", tc.schema, tc.instance, r)
				}
			}()
			// Refused as out of range, not computed with math/big (which
			// took seconds on these, or panicked past its exponent limit);
			// equal numbers that math/big cannot hold are still equal.
			err := sch.Validate(v)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s on %.40s: %v; want %q", tc.schema, tc.instance, err, tc.want)
			}
		}()
	}
	// Ordinary numbers still compare.
	sch, _ := Compile("mem:///s.json", []byte(`{"minimum":0,"multipleOf":0.5}`), Options{})
	for _, ok := range []string{"0", "1.5", "1e3", "2.5e-0"} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(ok))
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}
