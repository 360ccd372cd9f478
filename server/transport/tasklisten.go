package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// A subscriptions/listen stream that asks for task notices (taskIds, the
// tasks extension of 2026-07-28) is served here whole: mcp-go's filter has
// no taskIds, so it would neither acknowledge them nor keep a stream open
// for them alone. The stream acknowledges what it serves, as mcp-go does:
// the task ids that are the caller's, the resources they may read, and the
// list changes the server declares; then it writes each of those notices,
// tagged with the subscription, until the client goes.

// listenRequest is what a subscriptions/listen asks for.
type listenRequest struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	TaskIDs               []string `json:"taskIds,omitempty"`
}

// maxListenTasks bounds the task ids one stream follows: as many as a
// person keeps tasks (tasks.MaxPerPerson).
const maxListenTasks = 50

// asksForTasks reads a subscriptions/listen request: what it asks for,
// and whether it names task ids (then the transport serves it).
func asksForTasks(env envelope) (listenRequest, bool) {
	var want listenRequest
	if json.Unmarshal(env.params.Notifications, &want) != nil {
		return listenRequest{}, false
	}
	return want, len(want.TaskIDs) > 0
}

// serveTaskListen serves a subscriptions/listen stream that asks for task
// notices, until the client goes or the stream is ended to make room.
func (t *Transport) serveTaskListen(ctx context.Context, w http.ResponseWriter, r *http.Request, userID string, env envelope, want listenRequest) {
	id := env.requestID()
	if string(id) == "null" {
		writeRPCError(w, http.StatusOK, id, mcp.INVALID_REQUEST, "subscriptions/listen needs a request id: the stream's notices are tagged with it.")
		return
	}
	if err := mcp.ValidateStandardHeaders(r.Header.Get, r.Header.Get(mcp.HeaderProtocolVersion), mcp.MethodSubscriptionsListen, env.rawParams()); err != nil {
		writeRPCError(w, http.StatusBadRequest, id, mcp.HEADER_MISMATCH, err.Error())
		return
	}
	ctx, release, ok := t.holdListen(ctx, w, r, userID, &env, false)
	if !ok {
		return
	}
	defer release()
	s := listenStreamFrom(ctx)
	streams := t.streams()
	allowed := listenRequest{ToolsListChanged: want.ToolsListChanged && streams, PromptsListChanged: want.PromptsListChanged && streams,
		ResourcesListChanged: want.ResourcesListChanged && streams}
	if t.opts.Subscriptions != nil {
		for _, uri := range want.ResourceSubscriptions[:min(len(want.ResourceSubscriptions), maxListenResources)] {
			if t.opts.Subscriptions.Subscribe(ctx, userID, s.sessionID, uri) == nil {
				allowed.ResourceSubscriptions = append(allowed.ResourceSubscriptions, uri)
			}
		}
		defer func() {
			for _, uri := range allowed.ResourceSubscriptions {
				_ = t.opts.Subscriptions.Unsubscribe(context.WithoutCancel(ctx), userID, s.sessionID, uri)
			}
		}()
	}
	allowed.TaskIDs = t.opts.Tasks.Listen(ctx, userID, s.sessionID, want.TaskIDs[:min(len(want.TaskIDs), maxListenTasks)])
	for _, l := range []struct {
		on   bool
		list List
	}{{allowed.ToolsListChanged, ToolsList}, {allowed.PromptsListChanged, PromptsList}, {allowed.ResourcesListChanged, ResourcesList}} {
		if l.on {
			s.lists |= l.list
		}
	}
	s.owned.Store(true)

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flush := http.NewResponseController(w)
	ack, _ := json.Marshal(map[string]any{"jsonrpc": mcpJSONRPC, "method": mcp.MethodNotificationSubscriptionsAcknowledged,
		"params": map[string]any{"notifications": allowed, "_meta": map[string]any{mcp.MetaKeySubscriptionID: id}}})
	if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", ack); err != nil || flush.Flush() != nil {
		return
	}
	beat := time.NewTicker(streamHeartbeat)
	defer beat.Stop()
	for {
		var err error
		select {
		case <-ctx.Done():
			return
		case <-s.end:
			return
		case <-s.wake:
			err = writeTagged(w, s.take()&s.lists, s.takeQueued(), id)
		case <-beat.C:
			_, err = io.WriteString(w, ": keep-alive\n\n")
		}
		if err == nil {
			err = flush.Flush()
		}
		if err != nil {
			return
		}
	}
}

// writeTagged writes the lists changed and the notices queued, each
// tagged with the subscription id, in one write.
func writeTagged(w io.Writer, changed List, queued [][]byte, id json.RawMessage) error {
	var b bytes.Buffer
	tag := func(method string, params map[string]any) {
		if params == nil {
			params = map[string]any{}
		}
		meta, _ := params["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta[mcp.MetaKeySubscriptionID] = id
		params["_meta"] = meta
		raw, err := json.Marshal(map[string]any{"jsonrpc": mcpJSONRPC, "method": method, "params": params})
		if err == nil {
			fmt.Fprintf(&b, "event: message\ndata: %s\n\n", raw)
		}
	}
	for _, l := range lists {
		if changed&l.list != 0 {
			tag(l.method, nil)
		}
	}
	for _, raw := range queued {
		var n struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if json.Unmarshal(raw, &n) == nil && n.Method != "" {
			tag(n.Method, n.Params)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}
