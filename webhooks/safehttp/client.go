package safehttp

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

const (
	// defaultTimeout replaces a non-positive timeout given to Client: a delivery
	// without a deadline could hold a worker forever.
	defaultTimeout = 10 * time.Second
	// maxHandshake bounds connecting and the TLS handshake within the total timeout.
	maxHandshake = 10 * time.Second
	// maxHeaderBytes bounds the response headers a receiver may send.
	maxHeaderBytes = 64 << 10
	// drainBytes is how much of a response body ReadPrefix discards after the recorded
	// prefix so the connection can be reused; a longer body costs a new connection.
	drainBytes = 64 << 10
)

// Client returns an HTTP client for outbound deliveries. It gives up on a request after
// timeout in total (a non-positive timeout means 10 seconds), ignores proxy settings in
// the environment, and does not follow redirects: the caller receives the 3xx response
// itself, since a redirect is a second destination that was never checked.
//
// Unless p.AllowPrivate, every connection is checked against Refused on the IP address
// actually being connected to, after name resolution, so a name whose answer changed
// since CheckURL (DNS rebinding) is still refused; the request then fails with an error
// wrapping ErrForbiddenAddress before anything is sent.
func (p Policy) Client(timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	dialer := &net.Dialer{
		Timeout:   min(timeout, maxHandshake),
		KeepAlive: 30 * time.Second,
		Resolver:  p.Resolver,
	}
	if !p.AllowPrivate {
		dialer.ControlContext = refuseForbidden
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    min(timeout, maxHandshake),
		ResponseHeaderTimeout:  timeout,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: maxHeaderBytes,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// refuseForbidden is the dialer's control hook: it runs after the address is resolved
// and before the socket connects, with the literal IP and port being dialled.
func refuseForbidden(_ context.Context, network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		// Fail closed: an address we cannot read is an address we cannot vouch for.
		return fmt.Errorf("unreadable %s address %q: %w", network, address, ErrForbiddenAddress)
	}
	if k := classify(ap.Addr()); k != kindAllowed {
		return fmt.Errorf("%s is a %s address: %w", ap.Addr(), k, ErrForbiddenAddress)
	}
	return nil
}

// ReadPrefix reads at most n bytes of r for recording, then reads and discards up to
// 64 KiB more so that an HTTP connection can go back to the pool; it never reads more
// than n plus 64 KiB. An error is returned only if reading the prefix fails: by then
// the response has been received, and a failure while draining costs no more than the
// connection, which the caller's Close then drops.
func ReadPrefix(r io.Reader, n int) ([]byte, error) {
	n = max(n, 0)
	prefix, err := io.ReadAll(io.LimitReader(r, int64(n)))
	if err != nil {
		return prefix, fmt.Errorf("read response body: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(r, drainBytes))
	return prefix, nil
}
