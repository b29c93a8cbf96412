//go:build unix

package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A file swapped for a named pipe after the listing (a skill's own tool
// can write in its folder when it declares so) is refused when read, at
// once: opening a pipe for reading waited for a writer, forever.
func TestReadRefusesPipeSwappedIn(t *testing.T) {
	project := resFixture(t)
	c := build(t, project, "")
	_, cs := resSession(t, c, NewResources(ResourceOptions{}), nil)
	notes := filepath.Join(project, ".agents/skills/pdf/NOTES")
	if err := os.Remove(notes); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(notes, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: SkillURI("pdf", "NOTES")})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("reading a pipe succeeded; want refused")
		}
	case <-time.After(3 * time.Second):
		// Unblock the server's open so the test can end.
		if w, err := os.OpenFile(notes, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("reading a pipe swapped in blocked")
	}
}
