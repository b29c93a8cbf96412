package selfschema

import (
	"os"
	"testing"
)

func BenchmarkCompileFrontmatterSchema(b *testing.B) {
	data, err := os.ReadFile("../../skill/schemas/frontmatter.schema.json")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Compile("skillpm:///frontmatter.schema.json", data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckCostFrontmatterSchema(b *testing.B) {
	data, err := os.ReadFile("../../skill/schemas/frontmatter.schema.json")
	if err != nil {
		b.Fatal(err)
	}
	sch, err := Compile("skillpm:///frontmatter.schema.json", data, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := checkCost(sch); err != nil {
			b.Fatal(err)
		}
	}
}
