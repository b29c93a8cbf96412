package netproxy

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Where an allowed name may lead. A network.outbound entry that is a
// name grants the public host of that name, not whatever its DNS answer
// says today: a name whose answer is a loopback, private, link-local,
// unspecified or multicast address (DNS rebinding: evil.example resolving
// to 127.0.0.1 or 169.254.169.254) is refused. An entry that is that IP
// literal, or localhost itself, grants it. The proxy connects to the
// address it checked; it never resolves the name a second time.

// nonPublic are address ranges a name may not resolve to, besides those
// netip classifies (loopback, private, link-local, multicast,
// unspecified).
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT, shared address space
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64: may embed any IPv4 address
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2002::/16"),       // 6to4: may embed any IPv4 address
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated
}

// addrClass names why a is not a public unicast address, or returns "".
func addrClass(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "a loopback address"
	case a.IsUnspecified():
		return "an unspecified address"
	case a.IsPrivate():
		return "a private address"
	case a.IsLinkLocalUnicast():
		return "a link-local address"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return "a reserved address"
		}
	}
	return ""
}

// refusal is why an allowed host:port is still not connected to.
type refusal struct{ reason string }

func (r *refusal) Error() string { return r.reason }

// resolve returns the addresses to connect to for host (allowed by rule
// r): an IP literal as is, localhost (granted by name) to its loopback
// addresses, any other name to its addresses if every one is public. A
// *refusal says why not.
func (p *Proxy) resolve(ctx context.Context, host string, r hostRule) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a.Unmap()}, nil // the entry names this literal (Allowed matched it)
	}
	lookup := p.Resolve
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	addrs, err := lookup(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	localhost := r.host == "localhost"
	for i, a := range addrs {
		a = a.Unmap()
		addrs[i] = a
		if localhost {
			if !a.IsLoopback() {
				return nil, &refusal{fmt.Sprintf("localhost resolves to %s, not a loopback address", a)}
			}
			continue
		}
		if c := addrClass(a); c != "" {
			return nil, &refusal{fmt.Sprintf("%s resolves to %s, %s; only an entry naming that address allows it", host, a, c)}
		}
	}
	return addrs, nil
}

// dialChecked connects to the first of addrs that answers on port.
func (p *Proxy) dialChecked(ctx context.Context, addrs []netip.Addr, port string) (net.Conn, error) {
	var first error
	for _, a := range addrs {
		c, err := p.dial(ctx, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}
