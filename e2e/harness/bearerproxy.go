package harness

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"
)

// BearerProxy is a reverse proxy on a loopback port in front of one
// Mattermost that signs every request in with a token, for MCP clients
// that cannot send a header of their own (the official conformance suite
// connects to a bare URL). It forwards the Host header the client sent, as
// a reverse proxy set up like Mattermost's nginx guide does
// (proxy_set_header Host $host), and flushes streamed responses at once.
type BearerProxy struct {
	URL    string // http://127.0.0.1:PORT
	server *http.Server
}

// StartBearerProxy starts a BearerProxy to target (a site URL) that adds
// "Authorization: Bearer token" to every request that has none.
func StartBearerProxy(target, token string) (*BearerProxy, error) {
	to, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	rp := &httputil.ReverseProxy{
		FlushInterval: -1,
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(to)
			r.Out.Host = r.In.Host
			r.SetXForwarded()
			if r.Out.Header.Get("Authorization") == "" {
				r.Out.Header.Set("Authorization", "Bearer "+token)
			}
		},
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return &BearerProxy{URL: "http://" + l.Addr().String(), server: srv}, nil
}

// Close stops the proxy and the requests it is forwarding.
func (p *BearerProxy) Close() error { return p.server.Close() }
