package ociref

import "testing"

func TestMirrorValidate(t *testing.T) {
	for _, tc := range []struct {
		m  Mirror
		ok bool
	}{
		{Mirror{Prefix: "ghcr.io/acme", Locations: []string{"oci:/srv"}}, true},
		{Mirror{Prefix: "ghcr.io/acme"}, false},
		{Mirror{Prefix: "oci:/x", Locations: []string{"oci:/srv"}}, false},
		{Mirror{Prefix: "ghcr.io/acme", Locations: []string{"UPPER/x:"}}, false},
		{Mirror{Prefix: "https://ghcr.io/acme/", Locations: []string{"oci:/srv"}}, true},
		{Mirror{Prefix: "/acme/skills", Locations: []string{"oci:/srv"}}, false},
		{Mirror{Prefix: "https://localhost", Locations: []string{"oci:/srv"}}, false},
		{Mirror{Prefix: "*", Locations: []string{"oci:/srv"}}, false},
		// Prefixes no repository is under: the mirror would get nothing.
		{Mirror{Prefix: "ghcr.io/acme/*", Locations: []string{"oci:/srv"}}, false},
		{Mirror{Prefix: "ghcr.io/*/skills", Locations: []string{"oci:/srv"}}, false},
		{Mirror{Prefix: "ghcr.io/acme/pdf:1.0.0", Locations: []string{"oci:/srv"}}, false},
		{Mirror{Prefix: "localhost:5000", Locations: []string{"oci:/srv"}}, true},
		{Mirror{Prefix: "ghcr.io", Locations: []string{"oci:/srv"}}, true},
	} {
		if got := tc.m.Validate() == nil; got != tc.ok {
			t.Errorf("Validate(%+v): got ok=%v, want %v", tc.m, got, tc.ok)
		}
	}
}
