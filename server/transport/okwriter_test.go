package transport

import (
	"net/http"
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
