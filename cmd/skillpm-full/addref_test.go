package main

import "testing"

func TestOCIRefArg(t *testing.T) {
	for arg, want := range map[string]bool{
		"pdf":                           false,
		"pdf@^1.2":                      false,
		"ghcr.io/acme/skills/pdf":       true,
		"ghcr.io/acme/skills/pdf:1.2.0": true,
		"127.0.0.1:5000/skills/pdf@^1":  true,
		"localhost/skills/pdf":          true,
		"oci:./registry/pdf":            true,
		"github.com/anthropics/skills":  false,
		"https://example.com/docs":      false,
		"example.com/team/skills.git":   false,
		"./skills/dev":                  false,
		"acme/skills":                   false,
	} {
		if got := ociRefArg(arg); got != want {
			t.Errorf("ociRefArg(%q) = %v; want %v", arg, got, want)
		}
	}
}
