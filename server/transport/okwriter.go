package transport

import "net/http"

// Every call of the response writer Mattermost hands a plugin is a round
// trip to the server: WriteHeader is two (the headers, then the status) and
// so is every Write. Most answers are 200, which a first Write implies, so
// OKWriter keeps a WriteHeader(200) until it is needed (a Write, a Flush or
// the end of the request), saving two round trips on almost every request;
// any other status goes through at once.

// OKWriter wraps Mattermost's response writer; Finish must run once the
// handler returned.
type OKWriter struct {
	http.ResponseWriter
	// held is a WriteHeader(200) not sent yet; sent is a status or body
	// already sent.
	held, sent bool
}

// NewOKWriter wraps w.
func NewOKWriter(w http.ResponseWriter) *OKWriter { return &OKWriter{ResponseWriter: w} }

// WriteHeader holds a 200 and sends any other status.
func (o *OKWriter) WriteHeader(code int) {
	if o.sent || o.held {
		return // net/http ignores a second status too
	}
	if code == http.StatusOK {
		o.held = true
		return
	}
	o.sent = true
	o.ResponseWriter.WriteHeader(code)
}

// Write sends the body; a held 200 goes with it, as net/http implies one.
func (o *OKWriter) Write(b []byte) (int, error) {
	o.sent, o.held = true, false
	return o.ResponseWriter.Write(b)
}

// Flush sends a held status first: a stream's headers must reach the
// client before its first event.
func (o *OKWriter) Flush() {
	o.release()
	if f, ok := o.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Finish sends a held status of a response without a body.
func (o *OKWriter) Finish() { o.release() }

func (o *OKWriter) release() {
	if o.held {
		o.held, o.sent = false, true
		o.ResponseWriter.WriteHeader(http.StatusOK)
	}
}

// Unwrap lets http.ResponseController reach the plugin RPC writer.
func (o *OKWriter) Unwrap() http.ResponseWriter { return o.ResponseWriter }
