package safehttp

import "net/netip"

// kind names the class of a refused address, for error messages.
type kind string

const (
	kindAllowed   kind = ""
	kindLoopback  kind = "loopback"
	kindPrivate   kind = "private"
	kindLinkLocal kind = "link-local"
	kindMulticast kind = "multicast"
	kindReserved  kind = "reserved"
)

// classified is an address range and the kind of address it holds.
type classified struct {
	prefix netip.Prefix
	kind   kind
}

// refusedV4 lists the IPv4 ranges that are not on the public internet. Documentation
// ranges are refused as well: nothing legitimate listens there, and if one of them is
// reachable from our network it is because someone routed it internally.
var refusedV4 = []classified{
	{netip.MustParsePrefix("0.0.0.0/8"), kindReserved},    // "this network", incl. 0.0.0.0
	{netip.MustParsePrefix("10.0.0.0/8"), kindPrivate},    // RFC 1918
	{netip.MustParsePrefix("100.64.0.0/10"), kindPrivate}, // carrier-grade NAT, RFC 6598
	{netip.MustParsePrefix("127.0.0.0/8"), kindLoopback},
	{netip.MustParsePrefix("169.254.0.0/16"), kindLinkLocal}, // incl. cloud metadata 169.254.169.254
	{netip.MustParsePrefix("172.16.0.0/12"), kindPrivate},    // RFC 1918
	{netip.MustParsePrefix("192.0.0.0/24"), kindReserved},    // IETF protocol assignments
	{netip.MustParsePrefix("192.0.2.0/24"), kindReserved},    // documentation TEST-NET-1
	{netip.MustParsePrefix("192.88.99.0/24"), kindReserved},  // deprecated 6to4 relay anycast
	{netip.MustParsePrefix("192.168.0.0/16"), kindPrivate},   // RFC 1918
	{netip.MustParsePrefix("198.18.0.0/15"), kindReserved},   // benchmarking
	{netip.MustParsePrefix("198.51.100.0/24"), kindReserved}, // documentation TEST-NET-2
	{netip.MustParsePrefix("203.0.113.0/24"), kindReserved},  // documentation TEST-NET-3
	{netip.MustParsePrefix("224.0.0.0/4"), kindMulticast},
	{netip.MustParsePrefix("240.0.0.0/4"), kindReserved}, // reserved, incl. broadcast 255.255.255.255
}

// IPv6 ranges that embed an IPv4 address: the packet finally reaches the embedded
// address, so that address decides.
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96") // well-known NAT64, RFC 6052, IPv4 in the low 32 bits
	sixToFour   = netip.MustParsePrefix("2002::/16")    // 6to4, IPv4 in bits 16..47
)

// globalUnicast is the only IPv6 space allocated for public hosts.
var globalUnicast = netip.MustParsePrefix("2000::/3")

// refusedV6 lists the parts of global unicast space 2000::/3 that are nonetheless not
// reachable public hosts. Everything outside 2000::/3 is refused without a list: that
// covers ::, ::1, the deprecated IPv4-compatible ::/96, discard-only 100::/64, the
// local-use NAT64 64:ff9b:1::/48, unique local fc00::/7 (incl. the AWS metadata
// address fd00:ec2::254), link-local fe80::/10, site-local fec0::/10 and multicast ff00::/8.
var refusedV6 = []classified{
	{netip.MustParsePrefix("2001::/23"), kindReserved},     // IETF protocol assignments: Teredo, benchmarking, ORCHID
	{netip.MustParsePrefix("2001:db8::/32"), kindReserved}, // documentation
	{netip.MustParsePrefix("3fff::/20"), kindReserved},     // documentation, RFC 9637
}

// Refused reports whether addr is an address outbound requests must not reach: anything
// that is not a public unicast host, whether written as IPv4, as an IPv4-mapped or
// IPv4-compatible IPv6 address, or as a NAT64 or 6to4 address embedding IPv4. The
// invalid zero Addr is refused.
func Refused(addr netip.Addr) bool {
	return classify(addr) != kindAllowed
}

// classify returns the kind of a refused address, or kindAllowed.
func classify(addr netip.Addr) kind {
	if !addr.IsValid() {
		return kindReserved
	}
	// A zone names an interface of this host; netip.Prefix.Contains never matches a
	// zoned address, so it must go before any range check.
	addr = addr.WithZone("").Unmap()
	if addr.Is4() {
		return classifyV4(addr)
	}
	switch {
	case addr.IsLoopback():
		return kindLoopback
	case addr.IsLinkLocalUnicast():
		return kindLinkLocal
	case addr.IsMulticast():
		return kindMulticast
	case addr.IsPrivate():
		return kindPrivate
	case nat64Prefix.Contains(addr):
		b := addr.As16()
		return classifyV4(netip.AddrFrom4([4]byte(b[12:16])))
	case sixToFour.Contains(addr):
		b := addr.As16()
		return classifyV4(netip.AddrFrom4([4]byte(b[2:6])))
	case !globalUnicast.Contains(addr):
		return kindReserved
	}
	for _, r := range refusedV6 {
		if r.prefix.Contains(addr) {
			return r.kind
		}
	}
	return kindAllowed
}

// classifyV4 classifies an IPv4 address against refusedV4.
func classifyV4(addr netip.Addr) kind {
	for _, r := range refusedV4 {
		if r.prefix.Contains(addr) {
			return r.kind
		}
	}
	return kindAllowed
}
