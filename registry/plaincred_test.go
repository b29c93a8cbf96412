package registry

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// TestNoCredentialsOverPlainHTTPUnasked: --plain-http (Options.PlainHTTP)
// is for loopback registries; a host that is not this machine and that
// the user did not list under plain_http gets no credentials over plain
// HTTP, or anyone on the path (answering its 401) would read them: the
// request fails with ErrInsecure naming the host and the fix. A loopback
// host, or a host listed by name, still gets them. Before, the Basic
// credentials went out in clear to whichever host asked.
func TestNoCredentialsOverPlainHTTPUnasked(t *testing.T) {
	var mu sync.Mutex
	var sent []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			mu.Lock()
			sent = append(sent, a)
			mu.Unlock()
			w.Write([]byte(`{"name":"org/pdf","tags":["1.0.0"]}`))
			return
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	// Every host name reaches the test server.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	remote, local := "registry.example:"+port, "127.0.0.1:"+port
	store := credentials.NewMemoryStore()
	for _, h := range []string{remote, local} {
		store.Put(bg, h, auth.Credential{Username: "u", Password: "secret"})
	}
	tests := []struct {
		name    string
		host    string
		opts    Options
		refused bool
	}{
		{"--plain-http, another host", remote, Options{PlainHTTP: true}, true},
		{"--plain-http, loopback", local, Options{PlainHTTP: true}, false},
		{"plain_http lists the host", remote, Options{PlainHTTPHosts: []string{remote}}, false},
		{"--plain-http, and plain_http lists the host", remote, Options{PlainHTTP: true, PlainHTTPHosts: []string{remote}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			sent = nil
			mu.Unlock()
			tt.opts.Transport, tt.opts.Credentials = tr, store
			c := NewClient(tt.opts)
			ref, err := ParseReference(tt.host + "/org/pdf")
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Versions(bg, ref)
			mu.Lock()
			n := len(sent)
			mu.Unlock()
			if !tt.refused {
				if err != nil || n == 0 {
					t.Fatalf("Versions: %v, credentials sent %d times; want success with credentials", err, n)
				}
				return
			}
			if n != 0 {
				t.Errorf("credentials went over plain HTTP to %s %d times", tt.host, n)
			}
			if !errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), tt.host) || !strings.Contains(err.Error(), "plain_http") {
				t.Errorf("Versions: %v; want ErrInsecure naming %s and plain_http", err, tt.host)
			}
		})
	}
}

// TestLoginNotOverPlainHTTPUnasked: login with --plain-http to a host
// that is not this machine, and that plain_http does not name, sends no
// password: it fails with ErrInsecure naming the host and plain_http,
// as every later command would. Before, the password went in clear.
func TestLoginNotOverPlainHTTPUnasked(t *testing.T) {
	var asked int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			asked++
			return
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	host := "registry.example:" + port
	c := NewClient(Options{PlainHTTP: true, Transport: tr, Credentials: credentials.NewMemoryStore()})
	err := c.Login(bg, host, "u", "secret")
	if !errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), host) || !strings.Contains(err.Error(), "plain_http") {
		t.Errorf("Login: %v; want ErrInsecure naming %s and plain_http", err, host)
	}
	if asked != 0 {
		t.Errorf("the password went over plain HTTP %d times", asked)
	}
	c = NewClient(Options{PlainHTTP: true, PlainHTTPHosts: []string{host}, Transport: tr, Credentials: credentials.NewMemoryStore()})
	if err := c.Login(bg, host, "u", "secret"); err != nil || asked == 0 {
		t.Errorf("Login to a host plain_http names: %v (password sent %d times); want success", err, asked)
	}
}

// TestTokenRealmsRefused: a registry whose challenge sends the token
// request (and with it the credentials) to plain http from https, or to
// an internal address such as the cloud metadata service, is refused by
// oras-go; the pull fails with ErrInsecure (exit 9) naming the realm.
// Before, the refusal was unclassified: exit 1, "a bug".
func TestTokenRealmsRefused(t *testing.T) {
	challenge := func(realm string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`",service="registry"`)
			w.WriteHeader(http.StatusUnauthorized)
		}
	}
	tlsSrv := httptest.NewTLSServer(challenge("http://token.example/token"))
	defer tlsSrv.Close()
	plainSrv := httptest.NewServer(challenge("http://169.254.169.254/token"))
	defer plainSrv.Close()
	tests := []struct {
		name, host, realm string
		opts              Options
	}{
		{"https registry, http realm", strings.TrimPrefix(tlsSrv.URL, "https://"), "http://token.example/token", Options{Transport: tlsSrv.Client().Transport}},
		{"realm on the metadata service", strings.TrimPrefix(plainSrv.URL, "http://"), "169.254.169.254", Options{PlainHTTP: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := credentials.NewMemoryStore()
			store.Put(bg, tt.host, auth.Credential{Username: "u", Password: "secret"})
			tt.opts.Credentials = store
			ref, _ := ParseReference(tt.host + "/org/pdf:1.0.0")
			_, err := NewClient(tt.opts).Resolve(bg, ref)
			if !errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), tt.realm) {
				t.Errorf("Resolve: %v; want ErrInsecure naming %s", err, tt.realm)
			}
		})
	}
}

// TestErrorsDoNotEchoCredentials: a registry (or its token service) that
// echoes the Authorization header, a token or the password it was sent
// in its error answer does not get them printed by skillpm, where a CI
// log would keep them: header values and JWTs are redacted from every
// error answer, and login's password from login's errors. Before, the
// answer was quoted as sent.
func TestErrorsDoNotEchoCredentials(t *testing.T) {
	const (
		password = "s3cret-pa55word"
		basic    = "dTpzM2NyZXQtcGE1NXdvcmQ=" // base64("u:s3cret-pa55word")
		jwt      = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJlLXBhcnQ"
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"errors":[{"code":"UNAUTHORIZED","message":"rejected Authorization: ` + r.Header.Get("Authorization") +
			`, token ` + jwt + `, bearer ` + jwt + `, password ` + password + `"}]}`))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	store := credentials.NewMemoryStore()
	store.Put(bg, host, auth.Credential{Username: "u", Password: password})
	c := NewClient(Options{PlainHTTPHosts: []string{host}, Credentials: store})
	ref, _ := ParseReference(host + "/org/pdf:1.0.0")
	_, err := c.Resolve(bg, ref)
	if !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("Resolve: %v; want ErrUnauthorized", err)
	}
	for _, secret := range []string{basic, jwt} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("Resolve's error echoes %q: %v", secret, err)
		}
	}
	err = c.Login(bg, host, "u", password)
	if err == nil {
		t.Fatal("Login succeeded against a registry that refuses everything")
	}
	for _, secret := range []string{basic, jwt, password} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("Login's error echoes %q: %v", secret, err)
		}
	}
}

// TestDebugLogWritesNoReasonPhrase: --debug logs each request's status
// as its code and standard text, not the reason phrase the registry
// wrote, which is its own free text (here echoing the credentials it
// was sent). Before, the phrase was logged as sent.
func TestDebugLogWritesNoReasonPhrase(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				c.Read(buf)
				c.Write([]byte("HTTP/1.1 404 Basic dTpzM2NyZXQtcGE1NXdvcmQ=\r\nContent-Length: 0\r\n\r\n"))
			}()
		}
	}()
	host := ln.Addr().String()
	var log strings.Builder
	var mu sync.Mutex
	c := NewClient(Options{PlainHTTPHosts: []string{host}, Logf: func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		log.WriteString(sprintf(format, args...) + "\n")
	}})
	ref, _ := ParseReference(host + "/org/pdf:1.0.0")
	c.Resolve(bg, ref)
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(log.String(), "dTpz") || !strings.Contains(log.String(), "404 Not Found") {
		t.Errorf("debug log:\n%s\nwant the status as 404 Not Found, without the registry's phrase", log.String())
	}
}
