package memo

import (
	"fmt"
	"os"
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
	var e Encoder
	e.Str("héllo")
	e.Str("x")
	k2 := Key(dir, "kind v1", []byte("coded"))
	Write(k2, "kind v1", e.B)
	if d, ok := ReadDecoder(k2, "kind v1", 100); !ok || d.Str() != "héllo" || d.Str() != "x" || !d.Done() {
		t.Errorf("ReadDecoder of an encoded memo: ok = %v", ok)
	}
	if d, ok := ReadDecoder(k, "kind v1", 100); !ok || d.Str() != "" || !d.Bad {
		t.Errorf("ReadDecoder of %q decoded a string", "decoded")
	}
	if _, ok := ReadDecoder(k, "kind v2", 100); ok {
		t.Error("ReadDecoder read a memo of another kind")
	}
	if _, ok := Read(k, "kind v1", 3); ok {
		t.Error("a memo over the limit was read")
	}
	// The folder keeps the newest Keep memos.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(k, old, old)
	os.Chtimes(k2, old, old)
	for i := range Keep {
		Write(Key(dir, "kind v1", []byte(fmt.Sprint(i))), "kind v1", nil)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != Keep {
		t.Errorf("%d memos kept; want %d", len(entries), Keep)
	}
	for _, k := range []string{k, k2} {
		if _, err := os.Stat(k); err == nil {
			t.Error("an oldest memo was kept")
		}
	}
}
