package e2e

import (
	"context"
	"fmt"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/skillpm/skillpm/registry"
)

// cmdPublishRaw packs the skill folder DIR and pushes it to REF
// (plain HTTP) with the registry library, without the lint 'skillpm
// publish' runs first: a stand-in for a hostile publisher's own tool,
// for scripts that check what consumers do with content lint would have
// refused.
//
//	publish-raw DIR REF
func cmdPublishRaw(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: publish-raw DIR REF")
	}
	ref, err := registry.ParseReference(args[1])
	ts.Check(err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := registry.Pack(ctx, ts.MkAbs(args[0]), registry.PackOptions{})
	ts.Check(err)
	defer p.Close()
	c := registry.NewClient(registry.Options{PlainHTTP: true})
	pub, err := c.Publish(ctx, p, ref, registry.PublishOptions{})
	ts.Check(err)
	fmt.Fprintln(ts.Stdout(), pub.Ref)
}
