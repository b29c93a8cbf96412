package toolrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// file is one file of a test skill; mode 0 means 0o644.
type file struct {
	body string
	mode os.FileMode
}

// writeSkill writes files into a fresh skill folder and returns its path.
func writeSkill(t testing.TB, files map[string]file) string {
	t.Helper()
	dir := t.TempDir()
	for name, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := f.mode
		if mode == 0 {
			mode = 0o644
		}
		if err := os.WriteFile(p, []byte(f.body), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// needInterp skips the test if the interpreter is missing; it is the only
// reason a test here may skip.
func needInterp(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not installed: %v", name, err)
	}
}

// interpOf returns the interpreter a handler file needs, or "".
func interpOf(entry string) string {
	switch inferRuntime(entry) {
	case RuntimeNode:
		return "node"
	case RuntimePython:
		return "python3"
	case RuntimeBash:
		return "bash"
	}
	return ""
}

// jsonEqual reports whether a and b hold the same JSON value.
func jsonEqual(t testing.TB, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("not JSON: %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("not JSON: %s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// mustJSON marshals v.
func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// kindOf is KindOf that also checks err is an *Error when non-nil.
func kindOf(t testing.TB, err error) Kind {
	t.Helper()
	var e *Error
	if err != nil && !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	return KindOf(err)
}

// envelope decodes an error envelope.
type envelope struct {
	Status string `json:"status"`
	Error  struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		Retriable bool   `json:"retriable"`
	} `json:"error"`
}

func decodeEnvelope(t testing.TB, b []byte) envelope {
	t.Helper()
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("decode envelope %s: %v", b, err)
	}
	return env
}
