package discovery_test

import (
	"fmt"

	"github.com/skillpm/skillpm/source/wellknown/discovery"
)

func ExampleParseOrigin() {
	u, err := discovery.ParseOrigin("https://example.com/docs/.well-known/agent-skills/index.json")
	fmt.Println(u, err)
	fmt.Println(u.String() + discovery.IndexPath)
	// Output:
	// https://example.com/docs <nil>
	// https://example.com/docs/.well-known/agent-skills/index.json
}
