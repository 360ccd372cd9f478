package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// A notification a call sends just before its result can be lost: mcp-go
// hands it to a goroutine that writes the call's stream, and on a request
// of 2026-07-28 (which it does not record for resumption) that goroutine
// drops it when the result got to the stream first. NotifyBeforeResult
// holds the call until the response carried the notification.

// lastNoticeWait bounds how long a call waits for its notification to be
// written: mcp-go writes it within milliseconds, and a response that
// cannot stream, or a client gone, must not hold the call longer.
const lastNoticeWait = 2 * time.Second

type responseWatchKey struct{}

// responseWatch sees what a call's response writes, for NotifyBeforeResult.
type responseWatch struct {
	mu sync.Mutex
	// want is what a write must contain (nil: nothing awaited); seen is
	// closed when one did.
	want []byte
	seen chan struct{}
}

// wrote is told every write of the response.
func (w *responseWatch) wrote(b []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.want != nil && bytes.Contains(b, w.want) {
		close(w.seen)
		w.want = nil
	}
}

// await starts waiting for a write containing want.
func (w *responseWatch) await(want []byte) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.want, w.seen = want, make(chan struct{})
	return w.seen
}

// NotifyBeforeResult sends the client of the call in ctx a notification on
// the call's stream and returns once the response wrote it (or after
// lastNoticeWait), so it reaches the client before the call's result. The
// notification is known by a field value unique to it: key and value, a
// string. It answers whether the notification was written.
func NotifyBeforeResult(ctx context.Context, method string, params map[string]any, key string) bool {
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return false
	}
	value, _ := params[key].(string)
	mark, err := json.Marshal(map[string]string{key: value})
	if err != nil {
		return false
	}
	// The field as it reads inside the notification's params.
	mark = bytes.TrimSuffix(bytes.TrimPrefix(mark, []byte("{")), []byte("}"))
	w, _ := ctx.Value(responseWatchKey{}).(*responseWatch)
	if w == nil {
		return srv.SendNotificationToClient(ctx, method, params) == nil
	}
	seen := w.await(mark)
	if srv.SendNotificationToClient(ctx, method, params) != nil {
		w.await(nil)
		return false
	}
	wait := time.NewTimer(lastNoticeWait)
	defer wait.Stop()
	select {
	case <-seen:
		return true
	case <-wait.C:
		w.await(nil)
		return false
	case <-ctx.Done():
		w.await(nil)
		return false
	}
}
