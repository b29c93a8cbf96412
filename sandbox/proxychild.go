package sandbox

import (
	"strconv"
	"strings"
)

// ProxyChildArg is the hidden first argument that makes skillpm-full
// serve the filtering proxy (package netproxy) for another process: the
// front program (cmd/skillpm) does not link the proxy, whose HTTP server
// and client would cost every command's start, so when a tool it runs
// declares network.outbound hosts it starts skillpm-full this way.
//
// The child serves the hosts of its other arguments on the listening
// socket passed as file descriptor 3 until its standard input reaches end
// of file, and reports on standard output, one ProxyLine each: "ready"
// once, or "error" and why it could not start; then "denied" and each
// Denied entry as it is added.
const ProxyChildArg = "__skillpm-netproxy"

// IsProxyChild reports whether args (os.Args) start a proxy child.
func IsProxyChild(args []string) bool { return len(args) > 1 && args[1] == ProxyChildArg }

// ProxyLine formats one line of a proxy child's report, without the
// newline: kind alone, or kind, a space and text quoted.
func ProxyLine(kind, text string) string {
	if text == "" {
		return kind
	}
	return kind + " " + strconv.Quote(text)
}

// ParseProxyLine parses a line ProxyLine formatted.
func ParseProxyLine(line string) (kind, text string, ok bool) {
	kind, quoted, found := strings.Cut(line, " ")
	if !found {
		return kind, "", kind != ""
	}
	text, err := strconv.Unquote(quoted)
	return kind, text, err == nil && kind != ""
}
