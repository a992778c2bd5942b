package safehttp_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finledger/finledger/webhooks/safehttp"
)

func TestRefused(t *testing.T) {
	tests := []struct {
		addr    string
		refused bool
	}{
		// Public unicast.
		{"93.184.216.34", false},
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"2606:2800:220:1:248:1893:25c8:1946", false},
		{"2001:4860:4860::8888", false},

		// Loopback.
		{"127.0.0.1", true},
		{"127.255.255.255", true},
		{"126.255.255.255", false},
		{"128.0.0.0", false},
		{"::1", true},

		// Unspecified and "this network".
		{"0.0.0.0", true},
		{"0.255.255.255", true},
		{"1.0.0.0", false},
		{"::", true},

		// RFC 1918 private.
		{"10.0.0.0", true},
		{"10.0.0.5", true},
		{"10.255.255.255", true},
		{"9.255.255.255", false},
		{"11.0.0.0", false},
		{"172.15.255.255", false},
		{"172.16.0.0", true},
		{"172.31.255.255", true},
		{"172.32.0.0", false},
		{"192.167.255.255", false},
		{"192.168.0.0", true},
		{"192.168.255.255", true},
		{"192.169.0.0", false},

		// Unique local IPv6, incl. the AWS IPv6 metadata address.
		{"fc00::", true},
		{"fd00:ec2::254", true},
		{"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
		{"fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true}, // outside 2000::/3, unassigned

		// Link-local, incl. cloud metadata.
		{"169.254.0.0", true},
		{"169.254.169.254", true},
		{"169.254.255.255", true},
		{"169.253.255.255", false},
		{"169.255.0.0", false},
		{"fe80::", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
		{"fec0::1", true}, // deprecated site-local

		// Carrier-grade NAT.
		{"100.63.255.255", false},
		{"100.64.0.0", true},
		{"100.127.255.255", true},
		{"100.128.0.0", false},

		// Multicast and broadcast.
		{"224.0.0.1", true},
		{"239.255.255.255", true},
		{"223.255.255.255", false},
		{"ff02::1", true},
		{"ff0e::1", true},
		{"255.255.255.255", true},
		{"240.0.0.1", true},

		// IETF protocol assignments and benchmarking.
		{"192.0.0.0", true},
		{"192.0.0.255", true},
		{"192.0.1.0", false},
		{"191.255.255.255", false},
		{"198.17.255.255", false},
		{"198.18.0.0", true},
		{"198.19.255.255", true},
		{"198.20.0.0", false},
		{"2001::1", true},   // Teredo
		{"2001:2::1", true}, // benchmarking

		// Documentation ranges are refused.
		{"192.0.2.1", true},
		{"198.51.100.1", true},
		{"203.0.113.1", true},
		{"203.0.114.0", false},
		{"2001:db8::1", true},
		{"3fff::1", true},

		// IPv4-mapped IPv6 takes the verdict of the IPv4 address.
		{"::ffff:127.0.0.1", true},
		{"::ffff:7f00:1", true},
		{"::ffff:10.0.0.5", true},
		{"::ffff:169.254.169.254", true},
		{"::ffff:172.16.0.0", true},
		{"::ffff:172.15.255.255", false},
		{"::ffff:100.64.0.1", true},
		{"::ffff:0.0.0.0", true},
		{"::ffff:255.255.255.255", true},
		{"::ffff:93.184.216.34", false},

		// IPv4-compatible IPv6 (deprecated) is refused altogether.
		{"::127.0.0.1", true},
		{"::10.0.0.5", true},
		{"::169.254.169.254", true},
		{"::93.184.216.34", true},

		// NAT64 takes the verdict of the embedded IPv4 address.
		{"64:ff9b::127.0.0.1", true},
		{"64:ff9b::a9fe:a9fe", true}, // 169.254.169.254
		{"64:ff9b::10.0.0.5", true},
		{"64:ff9b::192.168.1.1", true},
		{"64:ff9b::93.184.216.34", false},
		{"64:ff9b:1::93.184.216.34", true}, // local-use NAT64 prefix

		// 6to4 takes the verdict of the embedded IPv4 address.
		{"2002:7f00:1::1", true},
		{"2002:a9fe:a9fe::", true},
		{"2002:5db8:d822::1", false}, // 93.184.216.34

		// Discard-only.
		{"100::1", true},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			if got := safehttp.Refused(netip.MustParseAddr(tt.addr)); got != tt.refused {
				t.Errorf("Refused(%s) = %v, want %v", tt.addr, got, tt.refused)
			}
		})
	}
	if !safehttp.Refused(netip.Addr{}) {
		t.Error("Refused(zero Addr) = false, want true")
	}
}

func TestCheckURL(t *testing.T) {
	dns := startDNS(t)
	dns.set("public.test", "93.184.216.34")
	dns.set("public6.test", "2606:2800:220:1:248:1893:25c8:1946")
	dns.set("rebind.test", "127.0.0.1")
	dns.set("meta6.test", "fd00:ec2::254")
	dns.set("mixed.test", "93.184.216.34", "::1")
	strict := safehttp.Policy{Resolver: dns.resolver()}
	lax := safehttp.Policy{AllowPrivate: true, Resolver: dns.resolver()}

	padded := func(n int) string {
		base := "https://public.test/"
		return base + strings.Repeat("a", n-len(base))
	}

	const (
		ok        = ""
		notIPForm = "must use a host name or a standard IP address"
	)
	tests := []struct {
		name      string
		policy    safehttp.Policy
		raw       string
		want      string // the error message, or ok
		forbidden bool
	}{
		{"public IPv4 literal", strict, "https://93.184.216.34/hook", ok, false},
		{"public IPv6 literal", strict, "https://[2606:2800:220:1:248:1893:25c8:1946]/hook", ok, false},
		{"upper-case scheme", strict, "HTTPS://93.184.216.34/hook", ok, false},
		{"port and query", strict, "http://93.184.216.34:8443/hook?x=1", ok, false},
		{"highest port", strict, "http://93.184.216.34:65535/", ok, false},
		{"public name", strict, "https://public.test/hook", ok, false},
		{"public IPv6 name", strict, "https://public6.test/hook", ok, false},
		{"absolute name", strict, "https://public.test./hook", ok, false},
		{"empty port", strict, "https://public.test:/hook", ok, false},
		{"exactly 2048 bytes", strict, padded(2048), ok, false},

		{"too long", strict, padded(2049), "must be at most 2048 bytes", false},
		{"ftp", strict, "ftp://93.184.216.34/", "must be an http or https URL", false},
		{"javascript", strict, "javascript:alert(1)", "must be an absolute URL", false},
		{"file", strict, "file:///etc/passwd", "must be an http or https URL", false},
		{"relative path", strict, "/hooks/1", "must be an absolute URL", false},
		{"no scheme", strict, "public.test/hook", "must be an absolute URL", false},
		{"opaque", strict, "http:public.test", "must be an absolute URL", false},
		{"empty", strict, "", "must be an absolute URL", false},
		{"not a URL", strict, "http://exa mple.com/", "is not a valid URL", false},
		{"user and password", strict, "https://user:pass@public.test/", "must not contain a user name or password", false},
		{"user only", strict, "https://user@public.test/", "must not contain a user name or password", false},
		{"empty userinfo", strict, "https://@public.test/", "must not contain a user name or password", false},
		{"empty host", strict, "http:///hook", "must have a host", false},
		{"port without host", strict, "http://:8080/", "must have a host", false},
		{"fragment", strict, "https://public.test/hook#x", "must not contain a fragment", false},
		{"empty fragment", strict, "https://public.test/hook#", "must not contain a fragment", false},
		{"port zero", strict, "http://93.184.216.34:0/", "must have a port between 1 and 65535", false},
		{"port too high", strict, "http://93.184.216.34:65536/", "must have a port between 1 and 65535", false},
		{"IPv6 zone", strict, "http://[fe80::1%25eth0]/", "must not contain an IPv6 zone", false},

		{"localhost", strict, "http://localhost/", "resolves to a loopback address", true},
		{"localhost with port", strict, "http://localhost:8080/", "resolves to a loopback address", true},
		{"LOCALHOST.", strict, "http://LOCALHOST./", "resolves to a loopback address", true},
		{"sub.localhost", strict, "http://api.localhost/", "resolves to a loopback address", true},
		{"loopback", strict, "http://127.0.0.1:8080/", "is a loopback address", true},
		{"IPv6 loopback", strict, "http://[::1]/", "is a loopback address", true},
		{"mapped loopback", strict, "http://[::ffff:127.0.0.1]/", "is a loopback address", true},
		{"metadata", strict, "http://169.254.169.254/latest/meta-data", "is a link-local address", true},
		{"mapped metadata", strict, "http://[::ffff:169.254.169.254]/", "is a link-local address", true},
		{"NAT64 metadata", strict, "http://[64:ff9b::a9fe:a9fe]/", "is a link-local address", true},
		{"AWS IPv6 metadata", strict, "http://[fd00:ec2::254]/", "is a private address", true},
		{"private", strict, "http://10.0.0.5/", "is a private address", true},
		{"CGNAT", strict, "http://100.64.0.1/", "is a private address", true},
		{"unspecified", strict, "http://0.0.0.0/", "is a reserved address", true},
		{"broadcast", strict, "http://255.255.255.255/", "is a reserved address", true},
		{"multicast", strict, "http://224.0.0.1/", "is a multicast address", true},
		{"name to loopback", strict, "http://rebind.test/", "resolves to a loopback address", true},
		{"name to AWS IPv6 metadata", strict, "http://meta6.test/", "resolves to a private address", true},
		{"one of several addresses refused", strict, "http://mixed.test/", "resolves to a loopback address", true},
		{"name that does not resolve", strict, "http://nowhere.test/", "host does not resolve", false},

		// Go's parser accepts these; resolvers read them as 127.0.0.1 or not at all.
		{"hex IPv4", strict, "http://0x7f000001/", notIPForm, false},
		{"decimal IPv4", strict, "http://2130706433/", notIPForm, false},
		{"short IPv4", strict, "http://127.1/", notIPForm, false},
		{"octal IPv4", strict, "http://0177.0.0.1/", notIPForm, false},
		{"hex part", strict, "http://127.0.0.0x1/", notIPForm, false},
		{"five parts", strict, "http://1.2.3.4.5/", notIPForm, false},
		{"hex IPv4 allowed private", lax, "http://0x7f000001/", notIPForm, false},

		{"allowed loopback", lax, "http://127.0.0.1:8080/", ok, false},
		{"allowed localhost", lax, "http://localhost:8080/", ok, false},
		{"allowed IPv6 loopback", lax, "http://[::1]/", ok, false},
		{"allowed metadata", lax, "http://169.254.169.254/", ok, false},
		{"allowed private name", lax, "http://rebind.test/", ok, false},
		{"no lookup when private allowed", lax, "http://nowhere.test/", ok, false},
		{"allowed private still needs http", lax, "ftp://127.0.0.1/", "must be an http or https URL", false},
		{"allowed private still refuses userinfo", lax, "http://a:b@127.0.0.1/", "must not contain a user name or password", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.CheckURL(context.Background(), tt.raw)
			if tt.want == ok {
				if err != nil {
					t.Fatalf("CheckURL(%q) = %v, want nil", tt.raw, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckURL(%q) = nil, want %q", tt.raw, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("CheckURL(%q) = %q, want %q", tt.raw, err, tt.want)
			}
			if !errors.Is(err, safehttp.ErrInvalidURL) {
				t.Errorf("CheckURL(%q) = %v, does not wrap ErrInvalidURL", tt.raw, err)
			}
			if got := errors.Is(err, safehttp.ErrForbiddenAddress); got != tt.forbidden {
				t.Errorf("errors.Is(%v, ErrForbiddenAddress) = %v, want %v", err, got, tt.forbidden)
			}
		})
	}
}

func TestCheckURLCanceled(t *testing.T) {
	dns := startDNS(t)
	dns.set("public.test", "93.184.216.34")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := safehttp.Policy{Resolver: dns.resolver()}.CheckURL(ctx, "https://public.test/")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CheckURL with canceled context = %v, want context.Canceled", err)
	}
	if errors.Is(err, safehttp.ErrInvalidURL) {
		t.Errorf("CheckURL with canceled context = %v, blames the URL", err)
	}
}

// TestClientRefusesRebinding registers a name while it points at a public address and
// delivers after it has been moved to loopback: the dialer must refuse the new answer.
func TestClientRefusesRebinding(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
	}))
	t.Cleanup(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}

	dns := startDNS(t)
	dns.set("flip.test", "93.184.216.34")
	policy := safehttp.Policy{Resolver: dns.resolver()}
	target := "http://flip.test:" + port + "/hook"
	if err := policy.CheckURL(context.Background(), target); err != nil {
		t.Fatalf("CheckURL while public = %v", err)
	}

	dns.set("flip.test", srv.Listener.Addr().(*net.TCPAddr).IP.String())
	_, err = post(t, policy.Client(5*time.Second), target)
	if !errors.Is(err, safehttp.ErrForbiddenAddress) {
		t.Fatalf("delivery after rebinding = %v, want ErrForbiddenAddress", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

func TestClient(t *testing.T) {
	var hits, followed atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		followed.Add(1)
	})
	release := make(chan struct{})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/big-headers", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Padding", strings.Repeat("a", 100<<10))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for handlers

	t.Run("refuses loopback by default", func(t *testing.T) {
		_, err := post(t, safehttp.Policy{}.Client(5*time.Second), srv.URL+"/ok")
		if !errors.Is(err, safehttp.ErrForbiddenAddress) {
			t.Fatalf("POST to %s = %v, want ErrForbiddenAddress", srv.URL, err)
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("server saw %d requests, want 0", n)
		}
	})

	lax := safehttp.Policy{AllowPrivate: true}

	t.Run("allows loopback when private is allowed", func(t *testing.T) {
		resp, err := post(t, lax.Client(5*time.Second), srv.URL+"/ok")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusNoContent || hits.Load() != 1 {
			t.Errorf("status %d with %d hits, want 204 with 1", resp.StatusCode, hits.Load())
		}
	})

	t.Run("returns redirects unfollowed", func(t *testing.T) {
		resp, err := post(t, lax.Client(5*time.Second), srv.URL+"/redirect")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusFound {
			t.Errorf("status %d, want 302", resp.StatusCode)
		}
		if loc := resp.Header.Get("Location"); loc != "/elsewhere" {
			t.Errorf("Location %q, want /elsewhere", loc)
		}
		if n := followed.Load(); n != 0 {
			t.Errorf("redirect target saw %d requests, want 0", n)
		}
	})

	t.Run("times out", func(t *testing.T) {
		start := time.Now()
		_, err := post(t, lax.Client(200*time.Millisecond), srv.URL+"/slow")
		var netErr net.Error
		if !errors.As(err, &netErr) || !netErr.Timeout() {
			t.Fatalf("POST to a slow server = %v, want a timeout", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("gave up after %v, want about 200ms", d)
		}
	})

	t.Run("limits response headers", func(t *testing.T) {
		if _, err := post(t, lax.Client(5*time.Second), srv.URL+"/big-headers"); err == nil {
			t.Fatal("POST with 100 KiB of response headers succeeded, want an error")
		}
	})

	t.Run("ignores proxies from the environment", func(t *testing.T) {
		for _, p := range []safehttp.Policy{{}, lax} {
			tr, ok := p.Client(time.Second).Transport.(*http.Transport)
			if !ok {
				t.Fatalf("Transport is %T, want *http.Transport", p.Client(time.Second).Transport)
			}
			if tr.Proxy != nil {
				t.Errorf("Policy %+v: Transport.Proxy is set, want nil", p)
			}
		}
	})
}

// post delivers an empty JSON document to target and closes the response body.
func post(t *testing.T, c *http.Client, target string) (*http.Response, error) {
	t.Helper()
	resp, err := c.Post(target, "application/json", strings.NewReader("{}"))
	if err != nil {
		return nil, err
	}
	_, err = safehttp.ReadPrefix(resp.Body, 1024)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	return resp, err
}

func TestReadPrefix(t *testing.T) {
	const drain = 64 << 10
	tests := []struct {
		name     string
		size     int64 // body size; -1 for endless
		n        int
		wantLen  int
		maxRead  int64
		readsAll bool
	}{
		{"prefix of a large body", 10 << 20, 1000, 1000, 1000 + drain, false},
		{"prefix of an endless body", -1, 4096, 4096, 4096 + drain, false},
		{"short body", 10, 1000, 10, 10, true},
		{"body drained within bound", 1000 + drain, 1000, 1000, 1000 + drain, true},
		{"zero", 1 << 20, 0, 0, drain, false},
		{"negative", 1 << 20, -5, 0, drain, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := &countingBody{size: tt.size}
			got, err := safehttp.ReadPrefix(body, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if want := pattern(tt.wantLen); !bytes.Equal(got, want) {
				t.Errorf("got %d bytes, want the first %d bytes of the body", len(got), tt.wantLen)
			}
			if body.read > tt.maxRead {
				t.Errorf("read %d bytes, want at most %d", body.read, tt.maxRead)
			}
			if tt.readsAll && body.read != tt.size {
				t.Errorf("read %d bytes of %d, want the whole body drained", body.read, tt.size)
			}
		})
	}
}

func TestReadPrefixErrors(t *testing.T) {
	boom := errors.New("connection reset")
	t.Run("while reading the prefix", func(t *testing.T) {
		r := io.MultiReader(bytes.NewReader(pattern(10)), &failingReader{err: boom})
		if _, err := safehttp.ReadPrefix(r, 100); !errors.Is(err, boom) {
			t.Fatalf("ReadPrefix = %v, want %v", err, boom)
		}
	})
	t.Run("while draining", func(t *testing.T) {
		r := io.MultiReader(bytes.NewReader(pattern(100)), &failingReader{err: boom})
		got, err := safehttp.ReadPrefix(r, 10)
		if err != nil {
			t.Fatalf("ReadPrefix = %v, want nil once the prefix is complete", err)
		}
		if !bytes.Equal(got, pattern(10)) {
			t.Errorf("got %q, want %q", got, pattern(10))
		}
	})
}

// pattern returns the first n bytes every countingBody yields.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// countingBody yields pattern bytes, size of them or endlessly if size is -1, and
// counts how many were read.
type countingBody struct {
	size int64
	read int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	if c.size < 0 && c.read >= 16<<20 {
		// Far past any bound ReadPrefix keeps: fail rather than run forever.
		return 0, errors.New("read 16 MiB of an endless body")
	}
	if c.size >= 0 {
		left := c.size - c.read
		if left == 0 {
			return 0, io.EOF
		}
		p = p[:min(int64(len(p)), left)]
	}
	for i := range p {
		p[i] = byte((c.read + int64(i)) % 251)
	}
	c.read += int64(len(p))
	return len(p), nil
}

type failingReader struct{ err error }

func (f *failingReader) Read([]byte) (int, error) { return 0, f.err }

// testDNS is a minimal authoritative DNS server on 127.0.0.1 that answers A and AAAA
// queries from a table, so name resolution is tested without the internet.
type testDNS struct {
	conn    net.PacketConn
	mu      sync.Mutex
	answers map[string][]netip.Addr // by lower-case absolute name
}

func startDNS(t *testing.T) *testDNS {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &testDNS{conn: conn, answers: map[string][]netip.Addr{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.serve()
	}()
	t.Cleanup(func() {
		conn.Close()
		<-done
	})
	return d
}

// set makes name resolve to addrs from now on.
func (d *testDNS) set(name string, addrs ...string) {
	parsed := make([]netip.Addr, len(addrs))
	for i, a := range addrs {
		parsed[i] = netip.MustParseAddr(a)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.answers[strings.ToLower(name)+"."] = parsed
}

// resolver returns a pure-Go resolver that sends every query to d.
func (d *testDNS) resolver() *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var dialer net.Dialer
			return dialer.DialContext(ctx, "udp", d.conn.LocalAddr().String())
		},
	}
}

func (d *testDNS) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := d.conn.ReadFrom(buf)
		if err != nil {
			return // closed
		}
		if resp := d.answer(buf[:n]); resp != nil {
			_, _ = d.conn.WriteTo(resp, from)
		}
	}
}

const (
	typeA    = 1
	typeAAAA = 28
	classIN  = 1
)

// answer builds the response to one query, or returns nil for a message it cannot read.
func (d *testDNS) answer(q []byte) []byte {
	if len(q) < 12 || binary.BigEndian.Uint16(q[4:6]) != 1 {
		return nil
	}
	var labels []string
	i := 12
	for {
		if i >= len(q) {
			return nil
		}
		l := int(q[i])
		i++
		if l == 0 {
			break
		}
		if l > 63 || i+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[i:i+l]))
		i += l
	}
	if i+4 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i : i+2])
	question := q[12 : i+4]
	name := strings.ToLower(strings.Join(labels, ".")) + "."

	d.mu.Lock()
	addrs, known := d.answers[name]
	d.mu.Unlock()

	var records [][]byte
	for _, a := range addrs {
		switch {
		case qtype == typeA && a.Is4():
			records = append(records, a.AsSlice())
		case qtype == typeAAAA && a.Is6():
			records = append(records, a.AsSlice())
		}
	}

	// Flags: response, authoritative, recursion desired copied, recursion available,
	// and NXDOMAIN for names not in the table.
	flags := uint16(0x8400) | binary.BigEndian.Uint16(q[2:4])&0x0100 | 0x0080
	if !known {
		flags |= 3
	}
	resp := make([]byte, 12, 512)
	copy(resp[0:2], q[0:2])
	binary.BigEndian.PutUint16(resp[2:4], flags)
	binary.BigEndian.PutUint16(resp[4:6], 1)
	binary.BigEndian.PutUint16(resp[6:8], uint16(len(records)))
	resp = append(resp, question...)
	for _, rdata := range records {
		resp = append(resp, 0xc0, 12) // pointer to the name in the question
		resp = binary.BigEndian.AppendUint16(resp, qtype)
		resp = binary.BigEndian.AppendUint16(resp, classIN)
		resp = binary.BigEndian.AppendUint32(resp, 0) // TTL: never cache
		resp = binary.BigEndian.AppendUint16(resp, uint16(len(rdata)))
		resp = append(resp, rdata...)
	}
	return resp
}
