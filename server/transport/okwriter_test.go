package transport

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// rpcWriter records what reaches Mattermost's writer: each call is a round
// trip there.
type rpcWriter struct {
	header http.Header
	calls  []string
}

func (w *rpcWriter) Header() http.Header { return w.header }
func (w *rpcWriter) Write(b []byte) (int, error) {
	w.calls = append(w.calls, "write "+string(b))
	return len(b), nil
}
func (w *rpcWriter) WriteHeader(code int) { w.calls = append(w.calls, "status "+http.StatusText(code)) }
func (w *rpcWriter) Flush()               { w.calls = append(w.calls, "flush") }

func TestAnOKAnswerSendsItsStatusWithItsBodyAndAnyOtherStatusAtOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		do   func(w http.ResponseWriter)
		want string
	}{
		{"200 then a body", func(w http.ResponseWriter) { w.WriteHeader(http.StatusOK); _, _ = w.Write([]byte("{}")) }, "write {}"},
		{"a body alone", func(w http.ResponseWriter) { _, _ = w.Write([]byte("{}")) }, "write {}"},
		{"404 then a body", func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound); _, _ = w.Write([]byte("no")) }, "status Not Found|write no"},
		{"200 without a body", func(w http.ResponseWriter) { w.WriteHeader(http.StatusOK) }, "status OK"},
		{"a stream: 200 then a flush", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			_, _ = w.Write([]byte("event"))
		}, "status OK|flush|write event"},
		{"a second status is ignored", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusAccepted)
			w.WriteHeader(http.StatusOK)
		}, "status Accepted"},
		{"nothing written", func(w http.ResponseWriter) {}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rpc := &rpcWriter{header: http.Header{}}
			ok := NewOKWriter(rpc)
			c.do(ok)
			ok.Finish()
			if got := strings.Join(rpc.calls, "|"); got != c.want {
				t.Fatalf("Mattermost's writer saw %q, want %q", got, c.want)
			}
		})
	}
}

// countingBody counts the reads of a body, each a round trip in a plugin.
type countingBody struct {
	r     io.Reader
	reads int
}

func (b *countingBody) Read(p []byte) (int, error) { b.reads++; return b.r.Read(p) }
func (b *countingBody) Close() error               { return nil }

func TestABodyOfADeclaredLengthIsReadInOneReadAndOneOverTheBoundNotAtAll(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_me"}}`
	for _, c := range []struct {
		name      string
		length    string
		body      string
		want      string
		reads     int
		tooLarge  bool
		truncated bool
	}{
		{"declared", strconv.Itoa(len(msg)), msg, msg, 1, false, false},
		{"undeclared (chunked)", "", msg, msg, 2, false, false},
		{"over the bound", "65", strings.Repeat("x", 65), "", 0, true, false},
		{"shorter than declared", "80", msg, "", 0, false, true},
		// Declared past what is set aside on a length alone: read as it
		// arrives, so a client cannot make the plugin hold what it never sends.
		{"declared large", strconv.Itoa(preallocatedBodyBytes + 1), msg, msg, 0, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := &countingBody{r: strings.NewReader(c.body)}
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r.Body = body
			r.Header.Del("Content-Length")
			if c.length != "" {
				r.Header.Set("Content-Length", c.length)
			}
			limit := int64(2 * preallocatedBodyBytes)
			if c.tooLarge {
				limit = 64
			}
			if c.name == "declared large" {
				defer func() {
					if body.reads < 2 {
						t.Errorf("a large declared body was read in %d read(s), as if set aside whole", body.reads)
					}
				}()
			}
			got, err := readBody(httptest.NewRecorder(), r, limit)
			var tooLarge *http.MaxBytesError
			switch {
			case c.tooLarge:
				if !errors.As(err, &tooLarge) || body.reads != 0 {
					t.Fatalf("err %v after %d reads, want too large before any read", err, body.reads)
				}
			case c.truncated:
				if err == nil {
					t.Fatalf("a body shorter than its length was taken: %q", got)
				}
			default:
				if err != nil || string(got) != c.want || (c.reads > 0 && body.reads > c.reads) {
					t.Fatalf("body %q, %v after %d reads; want %q in at most %d", got, err, body.reads, c.want, c.reads)
				}
			}
		})
	}
}
