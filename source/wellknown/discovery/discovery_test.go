package discovery

import (
	"errors"
	"testing"
)

func TestParseOrigin(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"https://example.com", "https://example.com"},
		{"  https://example.com/docs/  ", "https://example.com/docs"},
		{"https://example.com/docs/.well-known/agent-skills/index.json", "https://example.com/docs"},
		{"https://example.com/.well-known/skills/index.json?x=1#top", "https://example.com"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080"},
	}
	for _, tc := range tests {
		u, err := ParseOrigin(tc.in)
		if err != nil || u.String() != tc.want {
			t.Errorf("ParseOrigin(%q) = %v, %v; want %s", tc.in, u, err, tc.want)
		}
	}
	refused := []struct {
		in   string
		want error
	}{
		{"example.com", ErrInvalidIndex},
		{"ftp://example.com", ErrInvalidIndex},
		{"https://", ErrInvalidIndex},
		{"https://user:secret@example.com", ErrInsecure},
	}
	for _, tc := range refused {
		if u, err := ParseOrigin(tc.in); !errors.Is(err, tc.want) {
			t.Errorf("ParseOrigin(%q) = %v, %v; want %v", tc.in, u, err, tc.want)
		}
	}
}
