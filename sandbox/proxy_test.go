package sandbox

import "testing"

func TestProxyAllowed(t *testing.T) {
	p, err := NewProxy([]string{"API.example.com", "files.example.org:443", "*.cdn.test", "10.0.0.1", "[::1]:8080"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host, port string
		want       bool
	}{
		{"api.example.com", "443", true},
		{"api.example.com.", "80", true},
		{"API.EXAMPLE.COM", "8443", true},
		{"evil.api.example.com", "443", false},
		{"example.com", "443", false},
		{"files.example.org", "443", true},
		{"files.example.org", "80", false},
		{"a.cdn.test", "443", true},
		{"a.b.cdn.test", "443", true},
		{"cdn.test", "443", false},
		{"evilcdn.test", "443", false},
		{"10.0.0.1", "22", true},
		{"10.0.0.2", "22", false},
		{"::1", "8080", true},
		{"[::1]", "8080", true},
		{"::1", "80", false},
	} {
		if got := p.Allowed(tc.host, tc.port); got != tc.want {
			t.Errorf("Allowed(%q, %q) = %v; want %v", tc.host, tc.port, got, tc.want)
		}
	}
	for _, bad := range []string{"", "a/b", "x:0", "x:99999", "*", "a.*.b", "user@host"} {
		if _, err := NewProxy([]string{bad}); err == nil {
			t.Errorf("NewProxy(%q) accepted it", bad)
		}
	}
}
