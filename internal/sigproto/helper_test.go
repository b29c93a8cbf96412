package sigproto

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestMain lets the test binary play the helper program:
// SIGPROTO_TEST_HELPER=serve answers with fakeBackend, =die exits at once.
func TestMain(m *testing.M) {
	switch os.Getenv("SIGPROTO_TEST_HELPER") {
	case "serve":
		if err := Serve(context.Background(), os.Stdin, os.Stdout, fakeBackend{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "die":
		fmt.Fprintln(os.Stderr, "helper crashed on purpose")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// fakeBackend verifies a bundle "good-N" as signed by "key:N" and
// rejects anything else with the bundle's text.
type fakeBackend struct{}

func (fakeBackend) Verify(_ context.Context, q *VerifyRequest) (*VerifyResponse, error) {
	if s, ok := strings.CutPrefix(string(q.Bundle), "good-"); ok {
		return &VerifyResponse{Signer: "key:" + s, Payload: []byte(q.Manifest)}, nil
	}
	return nil, fmt.Errorf("no trusted key verifies %s", q.Bundle)
}

func (fakeBackend) Sign(_ context.Context, q *SignRequest) (*SignResponse, error) {
	return &SignResponse{Bundle: append([]byte("signed:"), q.Statement...)}, nil
}

func (fakeBackend) Describe(_ context.Context, q *DescribeRequest) (*DescribeResponse, error) {
	return &DescribeResponse{PredicateType: "p", Signer: string(q.Bundle)}, nil
}

func TestHelperRoundTrip(t *testing.T) {
	t.Setenv("SIGPROTO_TEST_HELPER", "serve")
	h := &Helper{Path: os.Args[0]}
	defer h.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := h.Verify(ctx, &VerifyRequest{Manifest: fmt.Sprintf("sha256:%d", i), Bundle: []byte(fmt.Sprintf("good-%d", i))})
			if err != nil || out.Signer != fmt.Sprintf("key:%d", i) || string(out.Payload) != fmt.Sprintf("sha256:%d", i) {
				t.Errorf("Verify %d: %+v, %v", i, out, err)
			}
		}()
	}
	wg.Wait()
	// A request's own error comes back as its text; the helper goes on.
	if _, err := h.Verify(ctx, &VerifyRequest{Bundle: []byte("forged")}); err == nil || err.Error() != "no trusted key verifies forged" || errors.Is(err, ErrHelper) {
		t.Errorf("Verify forged: %v; want the backend's error", err)
	}
	if out, err := h.Sign(ctx, &SignRequest{Statement: []byte("{}")}); err != nil || string(out.Bundle) != "signed:{}" {
		t.Errorf("Sign: %+v, %v", out, err)
	}
	if out, err := h.Describe(ctx, &DescribeRequest{Bundle: []byte("b")}); err != nil || out.Signer != "b" {
		t.Errorf("Describe: %+v, %v", out, err)
	}
	if err := h.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestHelperDies(t *testing.T) {
	t.Setenv("SIGPROTO_TEST_HELPER", "die")
	h := &Helper{Path: os.Args[0]}
	defer h.Close()
	_, err := h.Verify(context.Background(), &VerifyRequest{Bundle: []byte("good-1")})
	if !errors.Is(err, ErrHelper) {
		t.Fatalf("Verify with a dead helper: %v; want ErrHelper", err)
	}
	// Every later call fails the same way, without a new process.
	if _, err2 := h.Sign(context.Background(), &SignRequest{}); !errors.Is(err2, ErrHelper) {
		t.Errorf("second call: %v", err2)
	}
}

func TestFindHelperMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := FindHelper()
	if !errors.Is(err, ErrHelperMissing) || !strings.Contains(err.Error(), "go install github.com/skillpm/skillpm/cmd/...") {
		t.Fatalf("FindHelper with none installed: %v; want ErrHelperMissing and how to install it", err)
	}
	h := &Helper{}
	if _, err := h.Verify(context.Background(), &VerifyRequest{}); !errors.Is(err, ErrHelperMissing) {
		t.Errorf("Helper.Verify with none installed: %v; want ErrHelperMissing", err)
	}
}

func TestServeRejects(t *testing.T) {
	in := strings.Join([]string{
		`{"version":99,"verify":{"bundle":"Z29vZC0x"}}`,
		`not json`,
		`{"version":1}`,
		`{"version":1,"verify":{"manifest":"m","bundle":"Z29vZC0x"}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := Serve(context.Background(), strings.NewReader(in), &out, fakeBackend{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{"speaks protocol 1, skillpm sent 99", "unreadable request", "empty request", `"signer":"key:1"`}
	if len(lines) != len(want) {
		t.Fatalf("got %d answers; want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("answer %d: %s; want %q", i, lines[i], w)
		}
	}
	// An over-long line stops the helper rather than being buffered.
	long := `{"version":1,"describe":{"bundle":"` + strings.Repeat("A", maxLine) + `"}}` + "\n"
	if err := Serve(context.Background(), strings.NewReader(long), &out, fakeBackend{}); err == nil {
		t.Error("Serve of an over-long line: no error")
	}
}

// panicBackend panics on every request, as a bug in sigstore-go reached
// by a hostile bundle would.
type panicBackend struct{ fakeBackend }

func (panicBackend) Verify(context.Context, *VerifyRequest) (*VerifyResponse, error) {
	panic("index out of range")
}

// A request whose check panics is answered with an error, and the next
// request still answered: one hostile bundle does not take down the
// helper that checks every other skill's signatures.
func TestServeRecovers(t *testing.T) {
	in := `{"version":1,"verify":{"bundle":"Z29vZC0x"}}` + "\n" + `{"version":1,"describe":{"bundle":"Z29vZC0x"}}` + "\n"
	var out bytes.Buffer
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("Serve panicked: %v", r)
			}
		}()
		return Serve(context.Background(), strings.NewReader(in), &out, panicBackend{})
	}()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"error":"`) || !strings.Contains(lines[0], "index out of range") || !strings.Contains(lines[1], `"signer":"good-1"`) {
		t.Errorf("answers:\n%s\nwant an error for the panic, then the describe answer", out.String())
	}
}
