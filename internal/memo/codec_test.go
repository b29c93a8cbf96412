package memo

import "testing"

func TestCodecRoundTrip(t *testing.T) {
	var e Encoder
	e.Num(3)
	e.Str("héllo")
	e.Byte(7)
	e.Str("")
	d := NewDecoder(e.B)
	if n, s, c, z := d.Num(), d.Str(), d.Byte(), d.Str(); n != 3 || s != "héllo" || c != 7 || z != "" || !d.Done() {
		t.Fatalf("read %d %q %d %q done=%v; want 3 héllo 7 \"\" true", n, s, c, z, d.Done())
	}
}

// Every cut of a valid encoding, and lengths larger than what is left,
// are malformed: never a panic, never a string read past the end.
func TestCodecMalformed(t *testing.T) {
	var e Encoder
	e.Str("abcdef")
	e.Byte(1)
	for i := range len(e.B) {
		d := NewDecoder(e.B[:i])
		d.Str()
		d.Byte()
		if d.Done() {
			t.Errorf("cut at %d of %d read as whole", i, len(e.B))
		}
	}
	var big Encoder
	big.Num(1 << 30) // far more than the bytes left, and an int on 32-bit systems too
	big.Str("x")
	d := NewDecoder(big.B)
	if d.Num(); !d.Bad {
		t.Error("a number larger than the bytes left was accepted")
	}
	if s := d.Str(); s != "" || !d.Bad {
		t.Errorf("after a bad read Str = %q, Bad = %v; want \"\", true", s, d.Bad)
	}
}

// Count refuses a count of items that could not fit in the bytes left.
func TestCodecCount(t *testing.T) {
	var e Encoder
	e.Num(2)
	e.Str("ab")
	e.Str("cd")
	if d := NewDecoder(e.B); d.Count(3) != 2 || d.Bad {
		t.Errorf("Count(3) of 2 items of 3 bytes: Bad = %v", d.Bad)
	}
	if d := NewDecoder(e.B); d.Count(4) != 0 || !d.Bad {
		t.Errorf("Count(4) of 2 items in 6 bytes: Bad = %v; want true", d.Bad)
	}
}

func TestCodecStrs(t *testing.T) {
	var e Encoder
	e.Strs([]string{"a", "", "héllo"})
	e.Strs(nil)
	d := NewDecoder(e.B)
	if got, none := d.Strs(), d.Strs(); len(got) != 3 || got[0] != "a" || got[1] != "" || got[2] != "héllo" || none != nil || !d.Done() {
		t.Errorf("Strs = %q, %q, done %v", got, none, d.Done())
	}
	var big Encoder
	big.Num(5) // five strings promised, two bytes follow
	big.Str("x")
	if d := NewDecoder(big.B); d.Strs() != nil || !d.Bad {
		t.Error("a count past the bytes left was read")
	}
}
