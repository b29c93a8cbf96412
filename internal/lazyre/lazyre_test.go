package lazyre

import "testing"

func TestNew(t *testing.T) {
	re := New(`^a+$`)
	if !re().MatchString("aaa") || re().MatchString("b") {
		t.Error("^a+$ matches wrongly")
	}
	if re() != re() {
		t.Error("compiled twice")
	}
	bad := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("an invalid expression did not panic on first use")
		}
	}()
	bad()
}
