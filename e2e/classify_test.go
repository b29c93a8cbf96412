package e2e

import "testing"

// TestUsesRegistry pins which scripts run against every registry kind.
func TestUsesRegistry(t *testing.T) {
	tests := []struct {
		script string
		want   bool
	}{
		{"exec skillpm publish --plain-http src $REGISTRY/e2e/x/pdf:1.0.0", true},
		{"exec skillpm pull ${REGISTRY}/e2e/x/pdf:1.0.0", true},
		{"exec sh -c 'echo $REGISTRY_KIND'", true},
		{"exec node client.mjs\n-- client.mjs --\nconst r = process.env.REGISTRY;", true},
		{"registry start MIRROR", true},
		{"  registry stop MIRROR", true},
		{"[linux] registry start PRIVATE --auth alice:s3cret", true},
		{"[kind:distribution] stdout x", true},
		{"[!kind:docker-registry] stdout x", true},
		{"exec skillpm lint .\nstdout ok", false},
		{"hostile start H\nskillpm-exit 10 pull --plain-http $H/hostile/size0:1.0.0 -o out", false},
		{"# the registry answers 404", false},
		{"stderr 'registry 127\\.0\\.0\\.1'", false},
		{"env SKILLPM_REGISTRY_BIN=x", false},
	}
	for _, tt := range tests {
		if got := usesRegistry.MatchString(tt.script); got != tt.want {
			t.Errorf("usesRegistry(%q) = %v; want %v", tt.script, got, tt.want)
		}
	}
}
