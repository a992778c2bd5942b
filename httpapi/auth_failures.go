package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Failed authentications are limited like requests, by token buckets in PostgreSQL that
// every instance draws from, but the buckets drain only on failures: one per client
// address and one per API key prefix (what listings show of a key), so that neither an
// address guessing many keys nor many addresses guessing one key get far. A request
// whose address has no failure left is refused with 429 before its credential counts,
// right or wrong: reading the budget rides in the lookup's round trip, and only a
// failure costs a second one, to take from the budgets. A key prefix with no failure
// left turns its wrong keys' 401 into 429 but lets the right key through: a key's 256
// random bits are not guessed at any rate, and a prefix that any member can read in
// the key listing must not let one of them stop another's integration.

// addressFailures names the failure budget of the request's client address, the one
// that refuses a request before its credential counts.
func (s *Server) addressFailures(r *http.Request) string {
	return "authfail:addr:" + s.clientAddress(r)
}

// failureBuckets names the budgets a failure of the request drains: its client
// address's and, when it presents something shaped like an API key, that key's shown
// prefix's.
func (s *Server) failureBuckets(r *http.Request) []string {
	buckets := []string{s.addressFailures(r)}
	if token, _ := credentialOf(r); len(token) == keyLen && strings.HasPrefix(token, keyPrefix) {
		buckets = append(buckets, "authfail:key:"+token[:keyShownLen])
	}
	return buckets
}

// authFailed counts a refused credential against the request's failure budgets and
// returns cause, or the refusal when one of the budgets had no failure left.
func (s *Server) authFailed(r *http.Request, cause error) error {
	if s.failures.perMinute <= 0 {
		return cause
	}
	b := &pgx.Batch{}
	var decisions []func() error
	for _, name := range s.failureBuckets(r) {
		decisions = append(decisions, s.failures.queue(b, namedBucket(name), s.now()))
	}
	if err := s.pool.SendBatch(r.Context(), b).Close(); err != nil {
		return fmt.Errorf("httpapi: count a failed authentication: %w", err)
	}
	for _, decision := range decisions {
		if err := decision(); err != nil {
			return err
		}
	}
	return cause
}

// clientAddress is the address a request came from, as the failure budgets count it:
// the connection's peer or, when the peer is a trusted proxy, the address that proxy
// (and any trusted proxies before it) received the request from, read from the right
// of X-Forwarded-For. The header is believed of trusted proxies only: anyone else could
// write any address in it. An IPv6 address counts by its /64, which one client commonly
// holds whole.
func (s *Server) clientAddress(r *http.Request) string {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	addr := peer.Addr().Unmap()
	if s.trusted(addr) {
		hops := forwardedFor(r)
		for i := len(hops) - 1; i >= 0 && s.trusted(addr); i-- {
			hop, err := netip.ParseAddr(hops[i])
			if err != nil {
				break // what a trusted proxy passed on is not an address: it counts as the sender
			}
			addr = hop.Unmap()
		}
	}
	addr = addr.WithZone("")
	if addr.Is6() {
		prefix, _ := addr.Prefix(64)
		return prefix.String()
	}
	return addr.String()
}

// forwardedFor lists the addresses of a request's X-Forwarded-For headers, the client's
// first and the last proxy's last.
func forwardedFor(r *http.Request) []string {
	var hops []string
	for _, header := range r.Header.Values("X-Forwarded-For") {
		for _, hop := range strings.Split(header, ",") {
			hops = append(hops, strings.TrimSpace(hop))
		}
	}
	return hops
}

func (s *Server) trusted(addr netip.Addr) bool {
	for _, p := range s.trustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// ParseTrustedProxies reads a list of addresses and CIDR prefixes separated by commas,
// such as "10.0.0.0/8, 192.0.2.7"; an empty list trusts no proxy.
func ParseTrustedProxies(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if prefix, err := netip.ParsePrefix(item); err == nil {
			out = append(out, prefix.Masked())
			continue
		}
		addr, err := netip.ParseAddr(item)
		if err != nil {
			return nil, errors.New("must be IP addresses or CIDR prefixes, separated by commas, such as 10.0.0.0/8,192.0.2.7")
		}
		addr = addr.Unmap()
		out = append(out, netip.PrefixFrom(addr, addr.BitLen()))
	}
	return out, nil
}
