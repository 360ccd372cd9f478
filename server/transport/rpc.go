package transport

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
)

// writeRPCError answers a JSON-RPC error with an HTTP status.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	writeRPCErrorData(w, status, id, code, message, nil)
}

// writeRPCErrorData is writeRPCError with the error's data member (none
// when nil).
func writeRPCErrorData(w http.ResponseWriter, status int, id json.RawMessage, code int, message string, data any) {
	rpcErr := map[string]any{"code": code, "message": message}
	if data != nil {
		rpcErr["data"] = data
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": rpcErr})
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
	// watch sees each write (nil: nobody looks; see NotifyBeforeResult).
	watch *responseWatch
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.watch != nil {
		s.watch.wrote(b)
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

// Flush keeps streaming responses streaming through the wrapper.
func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the plugin RPC writer.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// preallocatedBodyBytes is the most readBody sets aside for a body on its
// declared length alone, before its bytes arrive: a JSON-RPC message is a
// few hundred bytes, and a client declaring megabytes it never sends must
// not make the plugin hold them.
const preallocatedBodyBytes = 64 << 10

// readBody reads a request's body within max bytes. Each read of the body
// Mattermost hands a plugin is a round trip; a short body of a declared
// length is read in one, without the further read that would only find its
// end.
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	n, err := strconv.ParseInt(r.Header.Get("Content-Length"), 10, 64)
	if n > max {
		return nil, &http.MaxBytesError{Limit: max}
	}
	if err != nil || n < 0 || n > preallocatedBodyBytes {
		return io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r.Body, body); err != nil {
		return nil, err
	}
	return body, nil
}
