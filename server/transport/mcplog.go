package transport

import (
	"context"
	"log/slog"
)

// mcpLog passes mcp-go's own warnings and errors to the plugin log. A
// client's answer that this node cannot deliver is expected in a cluster (it
// goes to the mailbox), so that report is left out.
type mcpLog struct {
	log   Logger
	attrs []any
}

const undeliveredAnswer = "Failed to handle sampling response"

func (h mcpLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h mcpLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message == undeliveredAnswer {
		return nil
	}
	kv := append([]any(nil), h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		kv = append(kv, a.Key, a.Value.String())
		return true
	})
	if r.Level >= slog.LevelError {
		h.log.Error("mcp-go: "+r.Message, kv...)
	} else {
		h.log.Warn("mcp-go: "+r.Message, kv...)
	}
	return nil
}

func (h mcpLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	next := mcpLog{log: h.log, attrs: append([]any(nil), h.attrs...)}
	for _, a := range attrs {
		next.attrs = append(next.attrs, a.Key, a.Value.String())
	}
	return next
}

func (h mcpLog) WithGroup(string) slog.Handler { return h }
