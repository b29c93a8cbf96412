package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdioAnswersBadLines sends a server lines that are no JSON-RPC
// message between good ones: each gets its error response, and the
// session goes on to answer initialize and tools/list.
func TestStdioAnswersBadLines(t *testing.T) {
	const max = 1 << 10
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("ok", false), nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(context.Background(), s, stdioTransport(inR, outW, max), ServeOptions{}) }()
	replies := make(chan map[string]any)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("server wrote a line that is no JSON: %q", sc.Text())
			}
			replies <- m
		}
		close(replies)
	}()
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case m, ok := <-replies:
			if !ok {
				t.Fatalf("the server ended its output before answering %s", what)
			}
			return m
		case <-time.After(time.Minute):
			t.Fatalf("no answer to %s", what)
		}
		return nil
	}
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("write %.40q: %v", line, err)
		}
	}
	wantError := func(what string, code float64, id any) {
		t.Helper()
		m := next(what)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != code || m["id"] != id || m["jsonrpc"] != "2.0" {
			t.Fatalf("answer to %s = %v, want error %v with id %v", what, m, code, id)
		}
	}

	send("this is not JSON")
	wantError("a line that is not JSON", -32700, nil)
	send("   ") // blank lines are no message, and get no answer
	send(`{"jsonrpc":"1.0","id":7,"method":"ping"}`)
	wantError("a request of JSON-RPC 1.0", -32600, float64(7))
	send(`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`)
	wantError("a request whose id is an object", -32600, nil)
	send(`"just a string"`)
	wantError("a JSON string", -32600, nil)
	send(`{"jsonrpc":"2.0","id":"long","method":"ping","params":{"pad":"` + strings.Repeat("x", max) + `"}}`)
	wantError("a line over the limit", -32700, nil)

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if m := next("initialize"); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize answered %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send("{not json either")
	wantError("a bad line after initialize", -32700, nil)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	m := next("tools/list")
	tools, _ := m["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 1 || tools[0].(map[string]any)["name"] != "echo" {
		t.Fatalf("tools/list answered %v", m)
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// BenchmarkLineFilter is what StdioTransport adds per message: a
// tools/call line read, checked and passed on.
func BenchmarkLineFilter(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"slugify","arguments":{"title":"` + strings.Repeat("Hello MCP ", 30) + `"}}}` + "\n")
	f := &lineFilter{in: bufio.NewReaderSize(&repeat{line: line, n: b.N}, 64<<10), out: io.Discard, max: MaxLineLength}
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	buf := make([]byte, 32<<10)
	for {
		if _, err := f.Read(buf); err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
	}
}

// repeat reads line n times.
type repeat struct {
	line []byte
	n    int
	off  int
}

func (r *repeat) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.line[r.off:])
	if r.off += k; r.off == len(r.line) {
		r.off, r.n = 0, r.n-1
	}
	return k, nil
}
