// Package stripemock runs Stripe's own mock of its API (github.com/stripe/stripe-mock)
// for tests, behind a recording proxy of ours: the mock keeps no state, so what a test
// checks is the requests the service made and what the mock answered them. The mock is
// built from the Go module proxy once per machine, into the user's cache folder.
package stripemock

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/finledger/finledger/billing"
	"github.com/finledger/finledger/internal/testkit/gotool"
)

// Version is the stripe-mock the tests run.
const Version = "v0.203.0"

// Key is an API key stripe-mock accepts: it wants one that looks like a test-mode
// secret key.
const Key = "sk_test_finledger"

// Request is one request the service made, with the mock's answer.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Status int
	Body   []byte // the answer's
}

// Mock is a stripe-mock behind a recording proxy, whose URL is the API's.
type Mock struct {
	URL string

	t   testing.TB
	bin string

	mu sync.Mutex
	// target is the address of the mock started last; stopped, its port refuses the
	// requests sent there, as an unreachable provider would.
	target   *url.URL
	stop     func() // nil while stopped
	requests []Request
	edits    map[string]func(query url.Values, answer map[string]any)
}

// Start builds stripe-mock if this machine has not yet and starts it, and the proxy; both
// stop when the test ends.
func Start(t testing.TB) *Mock {
	t.Helper()
	bin, err := gotool.Binary("github.com/stripe/stripe-mock", Version)
	if err != nil {
		t.Fatal(err)
	}
	m := &Mock{t: t, bin: bin}
	m.Resume()
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			m.mu.Lock()
			defer m.mu.Unlock()
			r.SetURL(m.target)
		},
		ModifyResponse: func(resp *http.Response) error {
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return fmt.Errorf("read stripe-mock's answer: %w", err)
			}
			req := resp.Request
			if resp.StatusCode == http.StatusOK {
				if body, err = m.edit(req.URL.Path, req.URL.Query(), body); err != nil {
					return err
				}
			}
			resp.Body = io.NopCloser(bytes.NewReader(body))
			resp.ContentLength = int64(len(body))
			resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
			m.record(Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(), Status: resp.StatusCode, Body: body})
			return nil
		},
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	m.URL = srv.URL
	return m
}

// Edit changes the mock's JSON answers to the requests of a path before the service
// reads them: the mock answers a list with one fixture, and a test may want several
// customers, or subscriptions in several states.
func (m *Mock) Edit(path string, edit func(query url.Values, answer map[string]any)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.edits == nil {
		m.edits = map[string]func(url.Values, map[string]any){}
	}
	m.edits[path] = edit
}

func (m *Mock) edit(path string, query url.Values, body []byte) ([]byte, error) {
	m.mu.Lock()
	edit := m.edits[path]
	m.mu.Unlock()
	if edit == nil {
		return body, nil
	}
	var answer map[string]any
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, fmt.Errorf("stripe-mock's answer to %s: %w", path, err)
	}
	edit(query, answer)
	return json.Marshal(answer)
}

// Requests returns the requests the mock answered, in order.
func (m *Mock) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

func (m *Mock) record(r Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, r)
}

// Stop ends the mock process: until Resume, requests through the proxy fail as if
// Stripe could not be reached.
func (m *Mock) Stop() {
	m.mu.Lock()
	stop := m.stop
	m.stop = nil
	m.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Resume starts a mock process again, on a port of its own choosing.
func (m *Mock) Resume() {
	m.t.Helper()
	target, stop, err := run(m.bin)
	if err != nil {
		m.t.Fatal(err)
	}
	m.t.Cleanup(stop)
	m.mu.Lock()
	m.target, m.stop = target, stop
	m.mu.Unlock()
}

// run starts stripe-mock on a free port of 127.0.0.1 and returns its URL once it
// listens.
func run(bin string) (*url.URL, func(), error) {
	// HTTPS gets a port of its own too: without one, the mock takes its fixed default
	// (12112) even with -http-addr, and two mocks at once would collide.
	cmd := exec.Command(bin, "-http-addr", "127.0.0.1:", "-https-addr", "127.0.0.1:")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("stripe-mock: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start stripe-mock: %w", err)
	}
	exited := make(chan struct{})
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			<-exited
		})
	}
	addr := make(chan string, 1)
	go func() {
		// It prints "Listening for HTTP at address: 127.0.0.1:PORT" once it listens.
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if a, ok := strings.CutPrefix(lines.Text(), "Listening for HTTP at address: "); ok {
				addr <- a
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	select {
	case a := <-addr:
		return &url.URL{Scheme: "http", Host: a}, stop, nil
	case <-exited:
		return nil, nil, fmt.Errorf("stripe-mock exited before listening: %s", stderr.String())
	case <-time.After(30 * time.Second):
		stop()
		return nil, nil, errors.New("stripe-mock did not listen within 30s")
	}
}

// Cancellation checks that the requests recorded are, all of them and in order, those of
// cancelling a user's subscriptions: a search of the customers whose metadata names the
// user, a listing of each customer's subscriptions, a cancellation of each one listed
// active, trialing or past due, every one answered 200. It returns the subscriptions
// cancelled.
func (m *Mock) Cancellation(t testing.TB, userID string) []string {
	t.Helper()
	requests := m.Requests()
	next := func(method, path string) Request {
		t.Helper()
		if len(requests) == 0 {
			t.Fatalf("no request %s %s to Stripe", method, path)
		}
		r := requests[0]
		requests = requests[1:]
		if r.Method != method || r.Path != path || r.Status != http.StatusOK {
			t.Fatalf("request %s %s answered %d, want %s %s answered 200", r.Method, r.Path, r.Status, method, path)
		}
		return r
	}
	search := next(http.MethodGet, "/v1/customers/search")
	if q, want := search.Query.Get("query"), fmt.Sprintf("metadata['%s']:'%s'", billing.UserIDKey, userID); q != want {
		t.Fatalf("customer search %q, want %q", q, want)
	}
	var cancelled []string
	for _, customer := range listed(t, search) {
		subs := next(http.MethodGet, "/v1/subscriptions")
		if got := subs.Query.Get("customer"); got != customer.ID {
			t.Fatalf("subscriptions listed of customer %q, want %q", got, customer.ID)
		}
		for _, sub := range listed(t, subs) {
			if sub.Status == "active" || sub.Status == "trialing" || sub.Status == "past_due" {
				next(http.MethodDelete, "/v1/subscriptions/"+sub.ID)
				cancelled = append(cancelled, sub.ID)
			}
		}
	}
	for _, r := range requests {
		t.Errorf("unexpected request to Stripe: %s %s %v", r.Method, r.Path, r.Query)
	}
	return cancelled
}

// listed reads the objects of a list or search answer, which must be its last page.
func listed(t testing.TB, r Request) []struct{ ID, Status string } {
	t.Helper()
	var page struct {
		Data    []struct{ ID, Status string }
		HasMore bool `json:"has_more"`
	}
	if err := json.Unmarshal(r.Body, &page); err != nil || page.HasMore {
		t.Fatalf("answer to %s %s: has_more %t, %v", r.Method, r.Path, page.HasMore, err)
	}
	return page.Data
}
