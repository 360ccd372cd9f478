package untrusted

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// DialTimeout bounds reaching the host: one that has not answered in
	// 10 s is not reachable from here (many deployments let nothing out).
	DialTimeout = 10 * time.Second
	// StallTimeout gives up on a sender that sends nothing for 15 s, head
	// or body: a file host that is working sends far more often.
	StallTimeout = 15 * time.Second
	// MaxRedirects bounds the hops of one fetch; file hosts use one.
	MaxRedirects = 3
	// maxHeadBytes bounds a response's head as the framing check reads it,
	// as net/http bounds it by default.
	maxHeadBytes = 1 << 20
)

// Errors the caller words for the person.
var (
	// ErrUnreachable: the name does not resolve or nothing answers there.
	ErrUnreachable = errors.New("the host cannot be reached from this Mattermost")
	// ErrStalled: the sender stopped sending for StallTimeout.
	ErrStalled = errors.New("the host stopped sending")
	// ErrShorter: the body ended before its Content-Length.
	ErrShorter = errors.New("the body ended before its declared length")
	// ErrLonger: the body ran past its Content-Length.
	ErrLonger = errors.New("the body ran past its declared length")
)

// Resolver turns a host name into addresses (net.DefaultResolver; tests
// replace it).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Client fetches untrusted URLs under Policy.
type Client struct {
	Policy   Policy
	Resolver Resolver
	// TLS is the TLS configuration to start from (nil: the system's roots).
	TLS *tls.Config
	// Stall replaces StallTimeout (tests; 0: StallTimeout).
	Stall time.Duration
}

func (c *Client) stall() time.Duration {
	if c.Stall > 0 {
		return c.Stall
	}
	return StallTimeout
}

// Response is a fetched response whose Body reports a cut or overlong body
// as an error (ErrShorter, ErrLonger, ErrStalled) where net/http would end
// it cleanly or silently drop the rest.
type Response struct {
	Status int
	// Length is the declared Content-Length, -1 when none was declared.
	Length int64
	Header http.Header
	// Host is the host the bytes came from (after redirects).
	Host string
	Body io.ReadCloser
}

// CheckURL refuses a URL the policy does not let this server fetch: only
// http(s), and plain http only to a listed host.
func (c *Client) CheckURL(u *url.URL) error {
	host := u.Hostname()
	switch {
	case u.Scheme == "https" && host != "":
	case u.Scheme == "http" && host != "" && c.Policy.HostListed(host):
	case u.Scheme == "http":
		return &Refusal{Host: host, Reason: "plain http, which this Mattermost fetches only from a host an admin lists in Allowed untrusted internal connections; the link must be https"}
	default:
		return &Refusal{Host: host, Reason: "not an http(s) link"}
	}
	if u.User != nil {
		return &Refusal{Host: host, Reason: "a link with a user name or password in it"}
	}
	return nil
}

// Get fetches rawURL. The caller closes the Body.
func (c *Client) Get(ctx context.Context, rawURL string) (*Response, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, &Refusal{Host: "", Reason: "not a URL"}
	}
	if err := c.CheckURL(u); err != nil {
		return nil, err
	}
	conns := &connLog{}
	tr := &http.Transport{
		Proxy:       nil, // the address checked is the address reached
		DialContext: c.dial(conns, false),
		// Dialled here so the framing check sees the plain bytes inside
		// TLS, and HTTP/1.1 alone so there is framing to check.
		DialTLSContext:         c.dial(conns, true),
		TLSNextProto:           map[string]func(string, *tls.Conn) http.RoundTripper{},
		DisableKeepAlives:      true, // one response per connection: its framing is the file's
		ResponseHeaderTimeout:  c.stall(),
		MaxResponseHeaderBytes: maxHeadBytes,
		DisableCompression:     true, // the bytes counted are the bytes kept
	}
	hc := &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > MaxRedirects {
			return &Refusal{Host: req.URL.Hostname(), Reason: fmt.Sprintf("more than %d redirects", MaxRedirects)}
		}
		return c.CheckURL(req.URL)
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &Refusal{Host: u.Hostname(), Reason: "not a URL this server can request"}
	}
	resp, err := hc.Do(req)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, classify(err)
	}
	return &Response{Status: resp.StatusCode, Length: resp.ContentLength, Header: resp.Header, Host: resp.Request.URL.Hostname(),
		Body: &body{r: resp.Body, conn: conns.last()}}, nil
}

// classify keeps a policy refusal and names what else went wrong.
func classify(err error) error {
	if r, ok := IsRefusal(err); ok {
		return r
	}
	// net/http keeps only the text of a read error from before the head
	// (its connection's read loop rewraps it), so a stall is told by its
	// text too: whichever of the header timeout and the connection's own
	// deadline comes first.
	if msg := err.Error(); errors.Is(err, errStalledRead) || strings.Contains(msg, errStalledRead.Error()) {
		return fmt.Errorf("%w: %v", ErrStalled, err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		if strings.Contains(err.Error(), "awaiting response headers") {
			return fmt.Errorf("%w: %v", ErrStalled, err)
		}
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrUnreachable, err)
}

// dial resolves the host once, checks every address it has, and connects
// to a checked one.
func (c *Client) dial(conns *connLog, useTLS bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, portText, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		port, err := strconv.ParseUint(portText, 10, 16)
		if err != nil {
			return nil, err
		}
		addrs, err := c.resolve(ctx, host)
		if err != nil {
			return nil, err
		}
		for _, a := range addrs {
			if err := c.Policy.AllowAddr(host, a); err != nil {
				return nil, err
			}
		}
		d := net.Dialer{Timeout: DialTimeout}
		var raw net.Conn
		for _, a := range addrs {
			if raw, err = d.DialContext(ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String()); err == nil {
				break
			}
		}
		if raw == nil {
			return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		conn := raw
		if useTLS {
			cfg := &tls.Config{MinVersion: tls.VersionTLS12}
			if c.TLS != nil {
				cfg = c.TLS.Clone()
			}
			cfg.ServerName, cfg.NextProtos = host, []string{"http/1.1"}
			tc := tls.Client(raw, cfg)
			hctx, cancel := context.WithTimeout(ctx, DialTimeout)
			err := tc.HandshakeContext(hctx)
			cancel()
			if err != nil {
				raw.Close()
				return nil, err
			}
			conn = tc
		}
		fc := &framedConn{Conn: conn, stall: c.stall()}
		conns.add(fc)
		return fc, nil
	}
}

func (c *Client) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a}, nil
	}
	r := c.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return nil, fmt.Errorf("%w: %s does not resolve: %v", ErrUnreachable, host, err)
	}
	return addrs, nil
}

// connLog holds the connections of one fetch; with keep-alives off, the
// last is the one the final response came on.
type connLog struct {
	mu    sync.Mutex
	conns []*framedConn
}

func (l *connLog) add(c *framedConn) { l.mu.Lock(); l.conns = append(l.conns, c); l.mu.Unlock() }

func (l *connLog) last() *framedConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) == 0 {
		return nil
	}
	return l.conns[len(l.conns)-1]
}

var errStalledRead = errors.New("no byte within the stall timeout")

// framedConn reads the response's head as it passes, to learn its
// Content-Length, and counts what comes after it. net/http reads no
// further than the declared length and drops whatever else the sender
// wrote, so this reads ahead of it, greedily, into its own buffer: bytes
// that arrive with the body's end are seen. Every read waits at most
// StallTimeout.
type framedConn struct {
	net.Conn
	stall   time.Duration
	buf     []byte
	pending []byte

	mu     sync.Mutex
	head   []byte
	inBody bool
	length int64 // -1: none, or chunked
	body   int64
}

// readAhead is the read-ahead buffer of one connection.
const readAhead = 64 << 10

func (c *framedConn) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		if c.buf == nil {
			c.buf = make([]byte, readAhead)
		}
		_ = c.Conn.SetReadDeadline(time.Now().Add(c.stall))
		n, err := c.Conn.Read(c.buf)
		if n > 0 {
			c.see(c.buf[:n])
			c.pending = c.buf[:n]
		}
		if n == 0 {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return 0, fmt.Errorf("%w: %w", errStalledRead, err)
			}
			return 0, err
		}
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

func (c *framedConn) see(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(b) > 0 {
		if c.inBody {
			c.body += int64(len(b))
			return
		}
		if len(c.head) >= maxHeadBytes {
			return // net/http refuses such a head itself
		}
		c.head = append(c.head, b...)
		b = nil
		end := bytes.Index(c.head, []byte("\r\n\r\n"))
		if end < 0 {
			continue
		}
		head, rest := c.head[:end], c.head[end+4:]
		if informational(head) {
			c.head = nil
			b = rest
			continue
		}
		c.inBody, c.length = true, declaredLength(head)
		c.head = nil
		c.body = int64(len(rest))
	}
}

// longer reports a body that ran past the length its head declared.
func (c *framedConn) longer() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inBody && c.length >= 0 && c.body > c.length
}

// informational is a 1xx head, which another head follows.
func informational(head []byte) bool {
	line, _, _ := bytes.Cut(head, []byte("\r\n"))
	f := bytes.Fields(line)
	return len(f) >= 2 && len(f[1]) == 3 && f[1][0] == '1'
}

// declaredLength is the head's Content-Length, -1 when it has none or is
// chunked (chunked framing ends itself; net/http checks it).
func declaredLength(head []byte) int64 {
	length := int64(-1)
	for _, line := range bytes.Split(head, []byte("\r\n"))[1:] {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		switch strings.ToLower(string(bytes.TrimSpace(name))) {
		case "transfer-encoding":
			return -1
		case "content-length":
			if n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64); err == nil && n >= 0 {
				length = n
			}
		}
	}
	return length
}

// body turns how net/http ends a body into what happened to the file.
type body struct {
	r    io.ReadCloser
	conn *framedConn
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	switch {
	case err == io.EOF && b.conn != nil && b.conn.longer():
		return n, ErrLonger
	case errors.Is(err, io.ErrUnexpectedEOF):
		return n, ErrShorter
	case errors.Is(err, errStalledRead):
		return n, fmt.Errorf("%w: %v", ErrStalled, err)
	}
	return n, err
}

func (b *body) Close() error { return b.r.Close() }
