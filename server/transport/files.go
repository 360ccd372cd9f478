package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
)

// File transfer (draft SEP-2631, package filetransfer) for a client that
// declares the files capability: its two methods, the file_uris argument
// marked with x-mcp-file and read into files[], and file outputs as file
// content blocks. A client that declared nothing sees none of it: no
// method, no argument, no block.

type filesKey struct{}

// DeclaredFiles is the files capability the client of ctx declared; nil
// for none.
func DeclaredFiles(ctx context.Context) *filetransfer.Capability {
	c, _ := ctx.Value(filesKey{}).(*filetransfer.Capability)
	return c
}

// withDeclaredFiles notes what the client of this request declared: per
// request on 2026-07-28 (its _meta), at initialize before that (kept in
// the session record, so any node reads it).
func withDeclaredFiles(ctx context.Context, r *http.Request, env envelope) context.Context {
	method := env.method
	// A request of a session names an older revision in its header: its
	// record says, and its body need not be read again.
	if v := r.Header.Get(mcp.HeaderProtocolVersion); v != "" && !mcp.IsModernProtocol(v) && method != string(mcp.MethodInitialize) {
		if rec := sessionFrom(ctx); rec != nil && rec.Files != nil {
			return context.WithValue(ctx, filesKey{}, rec.Files)
		}
		return ctx
	}
	var c *filetransfer.Capability
	switch {
	case isModern(r, env):
		c = filetransfer.ParseCapability(env.metaMembers.ClientCapabilities)
	case method == string(mcp.MethodInitialize):
		c = filetransfer.ParseCapability(env.params.Capabilities)
	default:
		if rec := sessionFrom(ctx); rec != nil {
			c = rec.Files
		}
	}
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, filesKey{}, c)
}

// isFilesMethod is a method of file transfer's control plane.
func isFilesMethod(method string) bool { return strings.HasPrefix(method, "files/") }

// serveFiles answers files/authorizeUpload and files/authorizeDownload.
func (t *Transport) serveFiles(ctx context.Context, w http.ResponseWriter, r *http.Request, env envelope) {
	if t.opts.Files == nil {
		writeRPCError(w, errorStatus(r, env, mcp.METHOD_NOT_FOUND), env.requestID(), mcp.METHOD_NOT_FOUND, "Method not found: "+env.method)
		return
	}
	res, rpcErr := t.opts.Files.Serve(ctx, DeclaredFiles(ctx), env.method, env.rawParams())
	if rpcErr != nil {
		writeRPCErrorData(w, errorStatus(r, env, rpcErr.Code), env.requestID(), rpcErr.Code, rpcErr.Message, rpcErr.Data)
		return
	}
	writeRPCResult(w, env.requestID(), res)
}

// filesArguments reads the file URIs of a call to a tool that takes files
// into its files[] (env's message rewritten), for a client that sends them;
// any other call passes.
func (t *Transport) filesArguments(ctx context.Context, env *envelope) *filetransfer.Error {
	if t.opts.Files == nil || !DeclaredFiles(ctx).Inputs() || !t.opts.Files.TakesFiles(env.tool) {
		return nil
	}
	var rpcErr *filetransfer.Error
	env.rewriteParams(func(params map[string]json.RawMessage) bool {
		if params["arguments"] == nil {
			return false
		}
		var args json.RawMessage
		if args, rpcErr = t.opts.Files.Arguments(ctx, DeclaredFiles(ctx), params["arguments"]); rpcErr != nil {
			return false
		}
		params["arguments"] = args
		return true
	})
	return rpcErr
}

// filesRewrite is how the answer to this request changes for file
// transfer (nil: not at all): a tools/list gains file_uris where the
// client sends files, a call of a tool that gives a file carries it as a
// file content block where the client takes them.
func (t *Transport) filesRewrite(ctx context.Context, method, tool string) func(json.RawMessage) json.RawMessage {
	declared := DeclaredFiles(ctx)
	switch {
	case t.opts.Files == nil || declared == nil:
		return nil
	case method == string(mcp.MethodToolsList) && declared.Inputs():
		return func(res json.RawMessage) json.RawMessage { return t.opts.Files.DecorateTools(declared, res) }
	case method == string(mcp.MethodToolsCall) && declared.Outputs() && t.opts.Files.GivesFiles(tool):
		return func(res json.RawMessage) json.RawMessage { return filetransfer.Result(res, true) }
	}
	return nil
}

// serveRewritten serves the request into a buffer and rewrites the
// result of its JSON-RPC answer, whether sent as JSON or as the events of
// a stream.
func (t *Transport) serveRewritten(w http.ResponseWriter, r *http.Request, msg []byte, rewrite func(json.RawMessage) json.RawMessage) {
	buf := &bufferedResponse{header: http.Header{}, status: http.StatusOK}
	t.handOver(buf, r, msg)
	body := buf.body.Bytes()
	if strings.HasPrefix(buf.header.Get("Content-Type"), "text/event-stream") {
		lines := bytes.Split(body, []byte("\n"))
		for i, line := range lines {
			if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				lines[i] = append([]byte("data: "), rewriteAnswer(data, rewrite)...)
			}
		}
		body = bytes.Join(lines, []byte("\n"))
	} else {
		body = rewriteAnswer(body, rewrite)
	}
	buf.header.Del("Content-Length")
	buf.body.Reset()
	buf.body.Write(body)
	buf.copyTo(w)
}

// rewriteAnswer rewrites the result of one JSON-RPC answer; anything else
// (a notification, an error) passes unchanged.
func rewriteAnswer(msg []byte, rewrite func(json.RawMessage) json.RawMessage) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || m["result"] == nil {
		return msg
	}
	m["result"] = rewrite(m["result"])
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}
