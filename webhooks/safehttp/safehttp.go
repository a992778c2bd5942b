// Package safehttp owns the network boundary of outbound webhooks: it validates
// subscriber URLs and delivers to them without letting a subscriber point the service
// at its own internal network (server-side request forgery). Addresses are checked
// twice, once when a URL is registered and again on every connection, because the
// answer a name gives can change between the two (DNS rebinding).
package safehttp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Policy says which destinations outbound requests may reach.
type Policy struct {
	// AllowPrivate allows loopback, private, link-local and metadata addresses. It is
	// meant for development, where receivers run on the same machine, and is set from
	// FINLEDGER_WEBHOOK_ALLOW_PRIVATE=true by the service's configuration.
	AllowPrivate bool
	// Resolver resolves host names; nil means net.DefaultResolver.
	Resolver *net.Resolver
}

// ErrForbiddenAddress is wrapped when a destination resolves to a refused address.
var ErrForbiddenAddress = errors.New("destination address is not allowed")

// ErrInvalidURL is wrapped by every error CheckURL returns because of the URL itself,
// as opposed to the caller's context ending, so that callers can answer with a
// validation error.
var ErrInvalidURL = errors.New("invalid webhook URL")

const (
	// maxURLBytes bounds a subscription URL; longer ones are not real endpoints.
	maxURLBytes = 2048
	// resolveTimeout bounds the name lookup CheckURL makes while a client waits.
	resolveTimeout = 3 * time.Second
)

// urlError is a CheckURL failure. Its message is meant for the API client, so it is
// short and carries no wrapping chain; the sentinels are reachable with errors.Is.
type urlError struct {
	msg       string
	forbidden bool
}

func (e *urlError) Error() string { return e.msg }

// Is makes every urlError match ErrInvalidURL, and refused destinations also
// ErrForbiddenAddress.
func (e *urlError) Is(target error) bool {
	return target == ErrInvalidURL || (e.forbidden && target == ErrForbiddenAddress)
}

func invalid(msg string) error { return &urlError{msg: msg} }

func forbidden(verb string, k kind) error {
	return &urlError{msg: verb + " a " + string(k) + " address", forbidden: true}
}

// CheckURL validates a subscription URL when it is created or changed: it must be an
// absolute http or https URL of at most 2048 bytes with a host, no user:password@ part
// and no fragment, and a port, if given, in 1..65535. Hosts written as numbers in a
// form other than dotted-quad IPv4 (0x7f000001, 2130706433, 127.1, 0177.0.0.1) are
// rejected always, since resolvers disagree on what they mean.
//
// Unless p.AllowPrivate, the host, an IP literal or a name resolved with p.Resolver,
// must not be or resolve to any refused address (see Refused), and a name that does not
// resolve is rejected too. With AllowPrivate no lookup is made.
//
// Errors caused by the URL wrap ErrInvalidURL (and ErrForbiddenAddress for refused
// destinations) and have short messages meant for the API client, such as "must be an
// http or https URL" or "resolves to a private address". If ctx ends during the lookup,
// the returned error wraps ctx.Err() instead.
func (p Policy) CheckURL(ctx context.Context, raw string) error {
	if len(raw) > maxURLBytes {
		return invalid("must be at most " + strconv.Itoa(maxURLBytes) + " bytes")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return invalid("is not a valid URL")
	}
	switch {
	case u.Scheme == "" || u.Opaque != "":
		return invalid("must be an absolute URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return invalid("must be an http or https URL")
	case u.User != nil:
		return invalid("must not contain a user name or password")
	case strings.Contains(raw, "#"):
		// url.Parse cuts at the first '#', so any '#' starts a fragment, even an empty one.
		return invalid("must not contain a fragment")
	case u.Hostname() == "":
		return invalid("must have a host")
	}
	if port := u.Port(); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return invalid("must have a port between 1 and 65535")
		}
	}

	host := u.Hostname()
	if addr, err := netip.ParseAddr(host); err == nil {
		if addr.Zone() != "" {
			return invalid("must not contain an IPv6 zone")
		}
		if !p.AllowPrivate {
			if k := classify(addr); k != kindAllowed {
				return forbidden("is", k)
			}
		}
		return nil
	}
	if endsInNumber(host) {
		return invalid("must use a host name or a standard IP address")
	}
	if p.AllowPrivate {
		return nil
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		// RFC 6761: these are loopback whatever DNS says, and some resolvers act on it.
		return forbidden("resolves to", kindLoopback)
	}
	return p.checkName(ctx, host)
}

// checkName resolves host and refuses it if any of its addresses is refused: the
// delivery dialer may pick any of them.
func (p Policy) checkName(ctx context.Context, host string) error {
	// A lookup may still be answered after ctx ends (a concurrent identical lookup
	// shares its answer), and a check for a caller that is gone means nothing.
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("resolve webhook host: %w", err)
	}
	lookupCtx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := p.resolver().LookupNetIP(lookupCtx, "ip", host)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("resolve webhook host: %w", ctx.Err())
		}
		return invalid("host does not resolve")
	}
	if len(addrs) == 0 {
		return invalid("host does not resolve")
	}
	for _, addr := range addrs {
		if k := classify(addr); k != kindAllowed {
			return forbidden("resolves to", k)
		}
	}
	return nil
}

func (p Policy) resolver() *net.Resolver {
	if p.Resolver != nil {
		return p.Resolver
	}
	return net.DefaultResolver
}

// endsInNumber reports whether host's last label is numeric: decimal digits, or 0x
// followed by hex digits. The WHATWG URL standard and C's inet_aton read such hosts as
// IPv4 addresses in shorthand forms (127.1, 0x7f000001, 2130706433, 0177.0.0.1) that
// netip does not accept, so they would otherwise reach a resolver that might treat them
// as a name or as an address depending on the platform.
func endsInNumber(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") || strings.HasPrefix(last, "0X") {
		return strings.Trim(last[2:], "0123456789abcdefABCDEF") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}
