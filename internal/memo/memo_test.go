package memo

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestMemo(t *testing.T) {
	dir := t.TempDir()
	k := Key(dir, "kind v1", []byte("data"))
	if k == Key(dir, "kind v2", []byte("data")) || k == Key(dir, "kind v1", []byte("data ")) {
		t.Error("a key does not depend on the kind and every byte")
	}
	if _, ok := Read(k, "kind v1", 100); ok {
		t.Error("a memo never written was read")
	}
	Write(k, "kind v1", []byte("decoded"))
	if b, ok := Read(k, "kind v1", 100); !ok || string(b) != "decoded" {
		t.Errorf("Read = %q, %v", b, ok)
	}
	if _, ok := Read(k, "kind v2", 100); ok {
		t.Error("a memo of another kind was read")
	}
	if _, ok := Read(k, "kind v1", 3); ok {
		t.Error("a memo over the limit was read")
	}
	// The folder keeps the newest Keep memos.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(k, old, old)
	for i := range Keep {
		Write(Key(dir, "kind v1", []byte(fmt.Sprint(i))), "kind v1", nil)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != Keep {
		t.Errorf("%d memos kept; want %d", len(entries), Keep)
	}
	if _, err := os.Stat(filepath.Join(k)); err == nil {
		t.Error("the oldest memo was kept")
	}
}
