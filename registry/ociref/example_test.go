package ociref_test

import (
	"fmt"

	"github.com/skillpm/skillpm/registry/ociref"
)

func ExampleParse() {
	for _, s := range []string{"GHCR.IO:443/acme/skills/pdf:1.2.0+build.5", "oci:./registry/pdf@^1", "ghcr.io/Acme/pdf"} {
		r, err := ociref.Parse(s)
		fmt.Printf("%+v %v\n", r, err)
	}
	// Output:
	// {Layout: Registry:ghcr.io Repository:acme/skills/pdf Tag:1.2.0_build.5 Digest: Range:} <nil>
	// {Layout:registry/pdf Registry: Repository: Tag: Digest: Range:^1} <nil>
	// {Layout: Registry: Repository: Tag: Digest: Range:} reference "ghcr.io/Acme/pdf": invalid reference: invalid repository "Acme/pdf"
}

func ExampleMirror_Validate() {
	m := ociref.Mirror{Prefix: "ghcr.io/acme/skills", Locations: []string{"registry.internal/acme-skills", "oci:/srv/skills"}, Vetted: true}
	fmt.Println(m.Validate())
	m.Locations = nil
	fmt.Println(m.Validate())
	// Output:
	// <nil>
	// mirror ghcr.io/acme/skills: no mirrors listed
}
