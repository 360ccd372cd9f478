package untrusted

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestAnAddressIsAllowedOnlyWhenItIsPublicOrTheAdminListedIt(t *testing.T) {
	none := ParsePolicy("")
	none.own = func() []netip.Addr { return []netip.Addr{netip.MustParseAddr("203.0.113.7")} }
	listed := ParsePolicy("127.0.0.1, 10.1.0.0/16 files.intranet ::1")
	listed.own = func() []netip.Addr { return nil }
	for _, tc := range []struct {
		policy Policy
		host   string
		addr   string
		ok     bool
	}{
		{none, "files.example", "93.184.216.34", true},
		{none, "files.example", "2606:4700::1111", true},
		{none, "files.example", "127.0.0.1", false},
		{none, "files.example", "127.8.9.10", false},
		{none, "files.example", "10.0.0.5", false},
		{none, "files.example", "172.20.1.1", false},
		{none, "files.example", "192.168.1.1", false},
		{none, "files.example", "169.254.169.254", false}, // cloud metadata
		{none, "files.example", "100.100.100.200", false}, // a cloud's metadata in shared space
		{none, "files.example", "0.0.0.0", false},
		{none, "files.example", "::1", false},
		{none, "files.example", "::ffff:127.0.0.1", false}, // IPv4 in IPv6 clothing
		{none, "files.example", "fd00:ec2::254", false},    // a cloud's IPv6 metadata
		{none, "files.example", "fe80::1", false},
		{none, "files.example", "64:ff9b::a9fe:a9fe", false}, // NAT64 of 169.254.169.254
		{none, "files.example", "203.0.113.7", false},        // this server itself
		{listed, "files.example", "127.0.0.1", true},
		{listed, "files.example", "127.0.0.2", false},
		{listed, "files.example", "10.1.200.3", true},
		{listed, "files.example", "10.2.0.1", false},
		{listed, "files.intranet", "10.9.9.9", true}, // a listed name may be anywhere
		{listed, "FILES.INTRANET.", "192.168.0.9", true},
		{listed, "files.example", "::1", true},
		{listed, "files.example", "169.254.169.254", false},
	} {
		err := tc.policy.AllowAddr(tc.host, netip.MustParseAddr(tc.addr))
		if (err == nil) != tc.ok {
			t.Errorf("%s at %s: allowed=%v, want %v (%v)", tc.host, tc.addr, err == nil, tc.ok, err)
		}
		if err != nil && !strings.Contains(err.Error(), tc.host) {
			t.Errorf("the refusal %q does not name the host %q", err, tc.host)
		}
	}
}

func TestPlainHTTPGoesOnlyToAListedHostAndOtherSchemesNowhere(t *testing.T) {
	c := Client{Policy: ParsePolicy("127.0.0.1 intranet")}
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://files.example/x", true},
		{"http://files.example/x", false},
		{"http://127.0.0.1:8080/x", true},
		{"http://intranet/x", true},
		{"http://127.0.0.2/x", false},
		{"ftp://files.example/x", false},
		{"file:///etc/passwd", false},
		{"https://user:pw@files.example/x", false},
		{"https:///nohost", false},
	} {
		u, _ := url.Parse(tc.url)
		if err := c.CheckURL(u); (err == nil) != tc.ok {
			t.Errorf("%s: allowed=%v, want %v (%v)", tc.url, err == nil, tc.ok, err)
		}
	}
}

// fixedResolver answers every name with the same addresses and counts the
// lookups.
type fixedResolver struct {
	addrs []netip.Addr
	calls atomic.Int32
}

func (r *fixedResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.calls.Add(1)
	return r.addrs, nil
}

func TestANameIsResolvedOnceAndEveryAddressItHasIsChecked(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); io.WriteString(w, "ok") }))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	// One public-looking answer and one internal one: the internal one
	// refuses the name, whichever a dial would pick.
	r := &fixedResolver{addrs: []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("169.254.169.254")}}
	c := Client{Policy: ParsePolicy("files.test 127.0.0.1"), Resolver: r}
	_, err := c.Get(context.Background(), fmt.Sprintf("http://other.test:%d/x", port))
	if _, ok := IsRefusal(err); !ok || r.calls.Load() != 0 {
		t.Fatalf("plain http to an unlisted name: %v after %d lookups, want a refusal before any", err, r.calls.Load())
	}
	c.Policy = ParsePolicy("127.0.0.1")
	_, err = c.Get(context.Background(), fmt.Sprintf("https://files.test:%d/x", port))
	if _, ok := IsRefusal(err); !ok {
		t.Fatalf("a name with an internal address was not refused: %v", err)
	}
	if hits.Load() != 0 {
		t.Errorf("the server was reached %d times", hits.Load())
	}
	if r.calls.Load() != 1 {
		t.Errorf("the name was looked up %d times, want once", r.calls.Load())
	}
}

func TestARedirectToAnInternalAddressIsRefusedAndNeverFollowed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	}))
	defer srv.Close()
	c := Client{Policy: ParsePolicy("127.0.0.1")}
	_, err := c.Get(context.Background(), srv.URL+"/file")
	r, ok := IsRefusal(err)
	if !ok || r.Host != "169.254.169.254" {
		t.Fatalf("got %v, want a refusal of 169.254.169.254", err)
	}
}

func TestMoreThanThreeRedirectsAreRefused(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL+r.URL.Path+"x", http.StatusFound)
	}))
	defer srv.Close()
	c := Client{Policy: ParsePolicy("127.0.0.1")}
	_, err := c.Get(context.Background(), srv.URL+"/")
	if r, ok := IsRefusal(err); !ok || !strings.Contains(r.Reason, "redirects") {
		t.Fatalf("got %v, want a refusal for too many redirects", err)
	}
}

// rawServer answers every connection with exactly the bytes given, then
// waits or closes.
func rawServer(t *testing.T, response string, hold time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				buf := make([]byte, 4096)
				_, _ = conn.Read(buf)
				_, _ = io.WriteString(conn, response)
				time.Sleep(hold)
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/f"
}

func readAll(t *testing.T, c *Client, u string) ([]byte, error) {
	t.Helper()
	resp, err := c.Get(context.Background(), u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func TestABodyIsReadWholeOrItsCutIsReported(t *testing.T) {
	c := &Client{Policy: ParsePolicy("127.0.0.1"), Stall: 300 * time.Millisecond}
	body := strings.Repeat("x", 100_000)
	for _, tc := range []struct {
		name     string
		response string
		hold     time.Duration
		want     error
	}{
		{"exact", "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + body, 0, nil},
		{"shorter", "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + body[:40_000], 0, ErrShorter},
		{"longer", "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + body + "and then some", time.Second, ErrLonger},
		{"stalled in the body", "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + body[:10], 5 * time.Second, ErrStalled},
		{"stalled before the head", "", 5 * time.Second, ErrStalled},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 0, nil},
		{"chunked and cut", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", 0, ErrShorter},
		{"after a 100 Continue", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello!", time.Second, ErrLonger},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(t, c, rawServer(t, tc.response, tc.hold))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("a whole body failed: %v", err)
				}
				if len(got) == 0 {
					t.Fatal("no bytes")
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v (%d bytes), want %v", err, len(got), tc.want)
			}
		})
	}
}

func TestAHostThatDoesNotAnswerIsUnreachable(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	c := &Client{Policy: ParsePolicy("127.0.0.1")}
	_, err := c.Get(context.Background(), "http://"+addr+"/f")
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("got %v, want ErrUnreachable", err)
	}
}

func FuzzTheFramingCheckNeverMisreadsAHead(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"), 3)
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhey"), 7)
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\nabc"), 1)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		if cut <= 0 {
			cut = 1
		}
		// The same bytes seen in one piece or in pieces give one answer.
		whole, pieces := &framedConn{}, &framedConn{}
		whole.see(data)
		for i := 0; i < len(data); i += cut {
			pieces.see(data[i:min(i+cut, len(data))])
		}
		if whole.longer() != pieces.longer() || whole.body != pieces.body || whole.length != pieces.length {
			t.Fatalf("one piece: longer=%v body=%d length=%d; pieces of %d: longer=%v body=%d length=%d",
				whole.longer(), whole.body, whole.length, cut, pieces.longer(), pieces.body, pieces.length)
		}
	})
}

func TestAnHTTPSLinkIsFetchedOverTLSAndItsFramingIsStillChecked(t *testing.T) {
	body := strings.Repeat("y", 200_000)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/longer" {
			conn, buf, _ := w.(http.Hijacker).Hijack()
			defer conn.Close()
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%sand more", len(body), body)
			buf.Flush()
			time.Sleep(200 * time.Millisecond)
			return
		}
		io.WriteString(w, body)
	}))
	defer srv.Close()
	c := &Client{Policy: ParsePolicy("127.0.0.1"), TLS: srv.Client().Transport.(*http.Transport).TLSClientConfig}
	got, err := readAll(t, c, srv.URL+"/whole")
	if err != nil || len(got) != len(body) {
		t.Fatalf("over TLS: %d bytes, %v", len(got), err)
	}
	if _, err := readAll(t, c, srv.URL+"/longer"); !errors.Is(err, ErrLonger) {
		t.Fatalf("a longer body over TLS: %v, want ErrLonger", err)
	}
	// The server's certificate is checked: without its root it is refused.
	strict := &Client{Policy: ParsePolicy("127.0.0.1")}
	if _, err := readAll(t, strict, srv.URL+"/whole"); err == nil {
		t.Fatal("a certificate nobody trusts was accepted")
	}
}
