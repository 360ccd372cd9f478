package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Tasks: a tools/call whose write may wait for the person can be answered
// with a task that the client's host follows, instead of a call held open
// (MCP 2025-11-25's tasks, and the io.modelcontextprotocol/tasks extension
// of 2026-07-28). The call still runs through mcp-go as any call does: the
// transport marks it as a task call and takes its params.task away, so that
// mcp-go keeps no task of its own in one node's memory; once the tool
// answered, Options.Tasks stores the task and words the CreateTaskResult.
// The tasks/* requests never reach mcp-go: any node answers them from the
// KV store.

// TasksExtension is the identifier of MCP's tasks extension (2026-07-28),
// declared by a client in each request's capabilities.
const TasksExtension = "io.modelcontextprotocol/tasks"

// TaskCall is a tools/call handled as a task: what the tool's handler and
// the approval flow read and leave for the task.
type TaskCall struct {
	// ID is the task's id, drawn when the call came, so the write it
	// follows can name it.
	ID string
	// Tool is the tool called.
	Tool string
	// Modern is a request of protocol 2026-07-28 or later (the tasks
	// extension's wire form); else 2025-11-25's.
	Modern bool
	// ShowsPages is a client that declared url-mode elicitation: it can
	// show the person the confirmation page as the task's input request.
	ShowsPages bool

	mu      sync.Mutex
	writeID string
	reply   *ReplyWait
	result  *mcp.CallToolResult
	ran     bool
}

// ReplyWait is a wait for the first reply to a post by someone other than
// the caller, from Since until Until (wait_for_reply).
type ReplyWait struct {
	PostID string    `json:"post_id"`
	Since  time.Time `json:"since"`
	Until  time.Time `json:"until"`
}

// AwaitsReply records that the call waits for a reply: the task follows
// the post's thread until wait.Until.
func (c *TaskCall) AwaitsReply(wait ReplyWait) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reply = &wait
}

// Reply is the reply the task waits for, nil when it waits for none.
func (c *TaskCall) Reply() *ReplyWait {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reply
}

// waits is whether the call left something to follow.
func (c *TaskCall) waits() bool { return c.WriteID() != "" || c.Reply() != nil }

// Waits records that the call's write waits for the person: the task
// follows the pending write writeID.
func (c *TaskCall) Waits(writeID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeID = writeID
}

// WriteID is the pending write the task follows, "" when the call needed
// no wait (refused, or done at once).
func (c *TaskCall) WriteID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writeID
}

// Result is the tool's own result of the call.
func (c *TaskCall) Result() *mcp.CallToolResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.result
}

func (c *TaskCall) answered(res *mcp.CallToolResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.result, c.ran = res, true
}

func (c *TaskCall) handled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ran
}

type taskCallKey struct{}

// TaskOf is the task call being handled, nil for a call the client
// follows itself.
func TaskOf(ctx context.Context) *TaskCall {
	c, _ := ctx.Value(taskCallKey{}).(*TaskCall)
	return c
}

// RPCError is a JSON-RPC error a task request is answered with.
type RPCError struct {
	Code    int
	Message string
	Data    any
}

// TaskRequest is one tasks/* request.
type TaskRequest struct {
	Method string
	Params json.RawMessage
	// Modern is protocol 2026-07-28 or later; Declared is whether the
	// request's capabilities declared the tasks extension (2026-07-28
	// answers task requests only to a client that did).
	Modern, Declared bool
	// Session is the MCP session of the request ("" for none).
	Session string
}

// Tasks keeps the tasks of calls and answers for them.
type Tasks interface {
	// Supports is whether tool may wait for the person, so that a call of
	// it may be handled as a task.
	Supports(tool string) bool
	// Created stores the task of call, which the tool answered, and words
	// its CreateTaskResult for the client; session is the MCP session
	// that asked ("" for none).
	Created(ctx context.Context, userID, session string, call *TaskCall) (map[string]any, error)
	// Serve answers tasks/get, tasks/result, tasks/list, tasks/cancel
	// and tasks/update for the caller, who sees only their own tasks.
	Serve(ctx context.Context, userID string, req TaskRequest) (any, *RPCError)
	// Listen has the caller's tasks among ids tell the listen stream
	// stream when they end, and answers those ids.
	Listen(ctx context.Context, userID, stream string, ids []string) []string
}

// isTaskMethod is a request Options.Tasks answers.
func isTaskMethod(method string) bool {
	return strings.HasPrefix(method, "tasks/")
}

// taskCall marks a tools/call that is handled as a task: on 2025-11-25 one
// the client augmented with params.task, on 2026-07-28 one whose request
// declared the tasks extension; either only for a tool that may wait. Its
// message (env's) is left without params.task.
func (t *Transport) taskCall(ctx context.Context, r *http.Request, env *envelope) (context.Context, *TaskCall) {
	tool := env.tool
	if t.opts.Tasks == nil || !t.opts.Tasks.Supports(tool) || !env.hasParams {
		return ctx, nil
	}
	caps := requestCapabilities(*env)
	modern := isModern(r, *env)
	call := &TaskCall{ID: newTaskID(), Tool: tool, Modern: modern}
	if modern {
		if !caps.declares(TasksExtension) {
			return ctx, nil
		}
		call.ShowsPages = caps.Elicitation != nil && caps.Elicitation.URL != nil
	} else {
		if len(env.params.Task) == 0 {
			return ctx, nil
		}
		rec := sessionFrom(ctx)
		call.ShowsPages = rec != nil && rec.Capabilities.Elicitation != nil && rec.Capabilities.Elicitation.URL != nil
		env.rewriteParams(func(params map[string]json.RawMessage) bool {
			_, had := params["task"]
			delete(params, "task")
			return had
		})
	}
	return context.WithValue(ctx, taskCallKey{}, call), call
}

// serveTaskCall serves a tools/call marked as a task: mcp-go answers it
// into a buffer, then the task is stored and its CreateTaskResult sent. A
// call the tool never ran (an unknown tool, bad params) is answered as
// mcp-go answered it; so is, on 2026-07-28, a call that needed no wait (the
// extension lets a server answer the result at once), and any call whose
// task could not be stored: the tool's own answer then says where its
// write waits.
func (t *Transport) serveTaskCall(ctx context.Context, w http.ResponseWriter, r *http.Request, env envelope, call *TaskCall) {
	buf := &bufferedResponse{header: http.Header{}, status: http.StatusOK}
	t.handOver(&statusWriter{ResponseWriter: buf, status: http.StatusOK}, r.WithContext(ctx), env.body)
	if call.handled() && (!call.Modern || call.waits()) {
		res, err := t.opts.Tasks.Created(ctx, callerIDFrom(ctx), SessionID(ctx), call)
		if err == nil {
			writeRPCResult(w, env.requestID(), res)
			return
		}
		t.opts.Log.Error("Could not store the task of a tool call; it was answered as a call", "user_id", callerIDFrom(ctx), "tool", call.Tool, "error", err.Error())
	}
	buf.copyTo(w)
}

// serveTaskMethod answers a tasks/* request of the caller.
func (t *Transport) serveTaskMethod(ctx context.Context, w http.ResponseWriter, r *http.Request, env envelope) {
	method, params, id := env.method, env.rawParams(), env.requestID()
	req := TaskRequest{Method: method, Params: params, Modern: isModern(r, env), Session: SessionID(ctx)}
	if req.Modern {
		req.Declared = requestCapabilities(env).declares(TasksExtension)
		if why := taskHeadersMismatch(r, method, params); why != "" {
			writeRPCError(w, http.StatusBadRequest, id, mcp.HEADER_MISMATCH, why)
			return
		}
	}
	res, rpcErr := t.opts.Tasks.Serve(ctx, callerIDFrom(ctx), req)
	if rpcErr != nil {
		writeRPCErrorData(w, http.StatusOK, id, rpcErr.Code, rpcErr.Message, rpcErr.Data)
		return
	}
	writeRPCResult(w, id, res)
}

// taskHeadersMismatch checks the standard headers of a 2026-07-28 task
// request: Mcp-Method names the method, and Mcp-Name, which the extension
// sets to the task id so that proxies can route by it, must match it.
func taskHeadersMismatch(r *http.Request, method string, params json.RawMessage) string {
	if got := r.Header.Get(mcp.HeaderMethod); got != "" && got != method {
		return "The Mcp-Method header says " + truncate(got, 64) + " but the request is " + method + ": send the same method in both."
	}
	name := r.Header.Get(mcp.HeaderName)
	if name == "" {
		return ""
	}
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(params, &p)
	if decoded, ok := mcp.DecodeHeaderValue(name); !ok || decoded != p.TaskID {
		return "The Mcp-Name header does not match params.taskId: send the task id in both."
	}
	return ""
}

// clientCapabilities are the capabilities a request of 2026-07-28 declares
// in its _meta, as far as tasks read them.
type clientCapabilities struct {
	Extensions  map[string]json.RawMessage `json:"extensions"`
	Elicitation *struct {
		URL json.RawMessage `json:"url"`
	} `json:"elicitation"`
}

func (c clientCapabilities) declares(extension string) bool {
	_, ok := c.Extensions[extension]
	return ok
}

// requestCapabilities reads the client capabilities of a request's _meta.
func requestCapabilities(env envelope) clientCapabilities {
	var caps clientCapabilities
	_ = json.Unmarshal(env.metaMembers.ClientCapabilities, &caps)
	return caps
}

// isModern is a request of protocol 2026-07-28 or later: its header says
// so, or its _meta does.
func isModern(r *http.Request, env envelope) bool {
	if v := r.Header.Get(mcp.HeaderProtocolVersion); v != "" {
		return mcp.IsModernProtocol(v)
	}
	return mcp.IsModernProtocol(env.metaProtocolVersion())
}

// newTaskID is a task id no one can guess: 128 random bits.
func newTaskID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail (Go 1.24)
	return hex.EncodeToString(b)
}

func writeRPCResult(w http.ResponseWriter, id json.RawMessage, result any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// bufferedResponse keeps mcp-go's answer to a task call until the
// transport knows whether it is sent as it is.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferedResponse) WriteHeader(code int)        { b.status = code }

// Flush is a no-op: nothing of a buffered answer goes out early.
func (b *bufferedResponse) Flush() {}

func (b *bufferedResponse) copyTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	w.WriteHeader(b.status)
	_, _ = io.Copy(w, &b.body)
}
