package httpbound_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/skillpm/skillpm/internal/httpbound"
)

// A client whose every exchange is bounded in time, reading a body no
// longer than expected.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello, and then some")
	}))
	defer srv.Close()

	t := httpbound.Timeouts{Connect: 5 * time.Second, ResponseHeader: 10 * time.Second, Stall: 10 * time.Second}
	client := &http.Client{Transport: httpbound.Wrap(httpbound.NewTransport(t), t)}
	resp, err := client.Get(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(httpbound.LimitReader(resp.Body, 5))
	fmt.Println(strings.TrimSpace(err.Error()))
	// Output: more than the 5 bytes expected
}
