package sigproto

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// hostileHelper plays a misbehaving helper, by SIGPROTO_TEST_HELPER:
// "huge" answers with a line longer than maxLine, "garbage" with a line
// that is not JSON, "hang" reads requests and never answers (nor exits
// when its input ends).
func hostileHelper(mode string) {
	r := bufio.NewReader(os.Stdin)
	switch mode {
	case "huge":
		r.ReadString('\n')
		w := bufio.NewWriter(os.Stdout)
		chunk := strings.Repeat("A", 1<<20)
		for range maxLine/len(chunk) + 2 {
			w.WriteString(chunk)
		}
		w.WriteString("\n")
		w.Flush()
	case "garbage":
		r.ReadString('\n')
		fmt.Println("\x1b[31mnot json at all")
	case "hang":
		r.ReadString('\n')
		time.Sleep(time.Hour)
	}
	os.Exit(0)
}

func init() {
	if m := os.Getenv("SIGPROTO_TEST_HELPER"); m == "huge" || m == "garbage" || m == "hang" {
		hostileHelper(m)
	}
}

// watchdog fails the test, rather than the whole binary, when f does
// not return: this is about returning at all, never about speed.
func watchdog(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s never returned", what)
	}
}

func TestHostileHelper(t *testing.T) {
	for _, mode := range []string{"huge", "garbage"} {
		t.Run(mode, func(t *testing.T) {
			t.Setenv("SIGPROTO_TEST_HELPER", mode)
			h := &Helper{Path: os.Args[0]}
			defer h.Close()
			_, err := h.Verify(context.Background(), &VerifyRequest{Bundle: []byte("good-1")})
			if !errors.Is(err, ErrHelper) {
				t.Fatalf("Verify with a %s helper: %v; want ErrHelper", mode, err)
			}
		})
	}
}

// TestHelperHangs: a helper that never answers is given up on after
// Timeout even when the caller's context has no deadline, and Close
// does not wait for it forever.
func TestHelperHangs(t *testing.T) {
	t.Setenv("SIGPROTO_TEST_HELPER", "hang")
	h := &Helper{Path: os.Args[0], Timeout: 200 * time.Millisecond}
	var err error
	watchdog(t, "Verify with a hung helper", func() {
		_, err = h.Verify(context.Background(), &VerifyRequest{Bundle: []byte("good-1")})
	})
	if !errors.Is(err, ErrHelper) || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("Verify with a hung helper: %v; want ErrHelper saying it did not answer", err)
	}
	if _, err := h.Describe(context.Background(), &DescribeRequest{}); !errors.Is(err, ErrHelper) {
		t.Errorf("a later call: %v; want the same ErrHelper", err)
	}
	watchdog(t, "Close of a hung helper", func() { h.Close() })

	// Close of a helper that hangs between requests and ignores the end
	// of its input.
	h2 := &Helper{Path: os.Args[0], closeGrace: 100 * time.Millisecond}
	h2.mu.Lock()
	if err := h2.start(); err != nil {
		t.Fatal(err)
	}
	h2.in.Write([]byte("{}\n")) // it reads one line, then hangs
	h2.mu.Unlock()
	watchdog(t, "Close of a helper that ignores end of input", func() { h2.Close() })
}
