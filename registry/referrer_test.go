package registry

import (
	"errors"
	"testing"
)

// TestHeadPicksTag checks that Head, like Resolve, picks the tag for a
// range or a bare repository instead of asking for an empty reference.
func TestHeadPicksTag(t *testing.T) {
	f := newFixture(t, Options{})
	pubs := map[string]*Published{}
	for _, v := range []string{"1.0.0", "1.2.0", "2.0.0-rc.1"} {
		pubs[v] = f.publish(t, "pdf", v, nil)
	}
	fresh := f.client.Fresh()
	tests := []struct{ ref, want string }{
		{"org/skills/pdf", "1.2.0"},
		{"org/skills/pdf@^1", "1.2.0"},
		{"org/skills/pdf@~1.0", "1.0.0"},
		{"org/skills/pdf@>=2.0.0-0", "2.0.0-rc.1"},
		{"org/skills/pdf:1.0.0", "1.0.0"},
	}
	for _, tt := range tests {
		desc, err := fresh.Head(bg, f.ref(t, tt.ref))
		if err != nil {
			t.Errorf("Head(%s): %v", tt.ref, err)
			continue
		}
		if want := pubs[tt.want].Ref.Digest; desc.Digest != want {
			t.Errorf("Head(%s) = %s; want %s (%s)", tt.ref, desc.Digest, want, tt.want)
		}
	}
	if _, err := fresh.Head(bg, f.ref(t, "org/skills/pdf@^3")); !errors.Is(err, ErrNotFound) {
		t.Errorf("Head(@^3): %v; want ErrNotFound", err)
	}
	if _, err := fresh.Head(bg, f.ref(t, "org/skills/pdf@"+pubs["1.0.0"].Ref.Digest.String())); err != nil {
		t.Errorf("Head(@digest): %v", err)
	}
}
