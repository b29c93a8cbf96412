package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineLength bounds one line of a stdio client's input, as the SDK's
// own default does.
const MaxLineLength = mcp.DefaultMaxLineLength

// StdioTransport is the transport of 'skillpm mcp': newline-delimited
// JSON-RPC on in and out, as mcp.IOTransport, except that a line that is
// no JSON-RPC message gets an error response and the session goes on.
// The SDK ends the session at the first such line; JSON-RPC asks for a
// Parse error (-32700) or Invalid Request (-32600) answer instead, and
// an MCP client whose stdin is shared with a chatty wrapper, or that
// has one bug, should not lose every tool for it.
//
// A line longer than MaxLineLength is skipped to its end and answered
// with a Parse error. Batches (JSON arrays) go to the SDK as they are:
// whether it takes them depends on the protocol version it negotiated.
func StdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	return stdioTransport(in, out, MaxLineLength)
}

// stdioTransport is StdioTransport with lines of at most max bytes.
func stdioTransport(in io.Reader, out io.Writer, max int) mcp.Transport {
	w := &lockedWriter{w: out}
	return &mcp.IOTransport{
		Reader:        io.NopCloser(&lineFilter{in: bufio.NewReaderSize(in, 64<<10), out: w, max: max}),
		Writer:        w,
		MaxLineLength: -1, // lineFilter bounds lines, and passes none longer
	}
}

// lockedWriter serialises the SDK's writes (one Write per message) with
// the error responses lineFilter writes, so that lines never interleave.
// Close does not close out: the server must not close skillpm's stdout.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }

// lineFilter reads newline-delimited messages from in and passes on only
// lines the SDK can decode as JSON-RPC messages (or batches); every other
// non-blank line is answered on out.
type lineFilter struct {
	in   *bufio.Reader
	out  io.Writer
	max  int
	line []byte // the line being passed on
	next int    // how much of line was passed on
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for f.next == len(f.line) {
		line, long, err := f.readLine()
		var reply []byte
		switch {
		case long:
			reply = errorReply(line, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: a line longer than %d bytes", f.max))
		case len(line) > 0:
			if reply = check(line); reply == nil {
				f.line, f.next = append(line, '\n'), 0
			}
		}
		if reply != nil {
			if _, werr := f.out.Write(reply); werr != nil {
				return 0, werr
			}
		}
		if err != nil && f.next == len(f.line) {
			return 0, err
		}
	}
	n := copy(p, f.line[f.next:])
	f.next += n
	return n, nil
}

// readLine returns the next line without its line ending and the blanks
// around it, and the error that ended the input, if any. A line over
// f.max bytes is read to its end and dropped: long is true and line nil.
func (f *lineFilter) readLine() (line []byte, long bool, err error) {
	for {
		chunk, err := f.in.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > f.max+2 { // +2: a line ending does not count
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimSpace(line), long, err
		}
	}
}

// check returns nil when line is a JSON-RPC message or a batch for the
// SDK, else the error response to write.
func check(line []byte) []byte {
	if line[0] == '[' && json.Valid(line) {
		return nil // a batch: the SDK decides
	}
	if _, err := jsonrpc.DecodeMessage(line); err == nil {
		return nil
	}
	if !json.Valid(line) {
		return errorReply(line, jsonrpc.CodeParseError, "Parse error: not JSON; send one JSON-RPC message per line")
	}
	return errorReply(line, jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request, notification or response")
}

// errorReply is the error response to line, a line of its own.
func errorReply(line []byte, code int64, msg string) []byte {
	reply, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", replyID(line), jsonrpc.Error{Code: code, Message: msg}})
	return append(reply, '\n')
}

// replyID is the id an error response to line carries: the line's own
// when it has a valid one (a string or a number), else null, as
// JSON-RPC asks when the id cannot be known.
func replyID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 {
		var v any
		if json.Unmarshal(m.ID, &v) == nil {
			switch v.(type) {
			case string, float64:
				return m.ID
			}
		}
	}
	return json.RawMessage("null")
}
