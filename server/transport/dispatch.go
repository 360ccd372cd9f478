package transport

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// What happens to one POSTed JSON-RPC message, in one place (issue 47):
// the checks every message passes, in their order, then the one route its
// method takes. A new method is one row of routes; a new check is one row
// of checks.

// inbound is one POSTed message on its way through the transport: its
// envelope, read once, and what the checks and its route add to it.
type inbound struct {
	ctx     context.Context
	w       http.ResponseWriter
	r       *http.Request
	env     envelope
	userID  string
	started time.Time
	// after runs once the message is answered, last added first.
	after []func()
	// watch sees what mcp-go writes of a tool call's answer (nil: nobody
	// looks; see NotifyBeforeResult).
	watch *responseWatch
}

// later has fn run once the message is answered.
func (m *inbound) later(fn func()) { m.after = append(m.after, fn) }

// session is the message's MCP session, nil without one (or an unknown id).
func (m *inbound) session() *SessionRecord { return sessionFrom(m.ctx) }

// unknownSession is a message naming a session id no record was found
// for: its refusal (404, initialize again) is mcp-go's.
func (m *inbound) unknownSession() bool {
	return m.r.Header.Get(server.HeaderKeySessionID) != "" && m.session() == nil
}

// ownSession is the caller's own session, on a transport that relays
// answers and cancellations between nodes: what the questions to a client
// and the cancellation of its calls need.
func (t *Transport) ownSession(m *inbound) *SessionRecord {
	rec := m.session()
	if rec == nil || rec.UserID != m.userID || t.opts.Answers == nil {
		return nil
	}
	return rec
}

// logged notes an answered message at level log with its status and the
// fields given.
func (m *inbound) logged(log func(string, ...any), status int, fields ...any) {
	kv := append([]any{"user_id", m.userID, "http_method", m.r.Method, "method", m.logMethod(),
		"status", status}, fields...)
	log("MCP request", append(kv, "duration_ms", time.Since(m.started).Milliseconds())...)
}

func (m *inbound) logMethod() string {
	if m.env.answer {
		return "answer"
	}
	return m.env.method
}

// check is one thing every POSTed message passes before its route: it
// answers a refusal itself and reports false, or readies the message.
type check struct {
	name string
	pass func(t *Transport, m *inbound) bool
}

// checks run in this order on every POSTed message; their order is the
// only place that states which concern sees a message first.
var checks = []check{
	{"the method is named with what it stands for", (*Transport).methodNamed},
	{"an answer is small", (*Transport).answerSmall},
	{"the connection's choice", (*Transport).choiceKnown},
	{"a stateless client is noted", (*Transport).signInNoted},
	{"the files the client declared", (*Transport).filesDeclared},
	{"the person's waits", (*Transport).waitSharesCarried},
	{"the tool is offered and the rate allows it", (*Transport).withinRate},
}

// route is how the messages of one method are answered: by serve, which
// answers the message itself or readies it and hands it to mcp-go.
type route struct {
	concern string
	serve   func(t *Transport, m *inbound)
}

// routes is which concern answers which method; a method not named here
// is mcp-go's alone (ping, the lists, prompts, completion, server/discover,
// the notifications).
var routes = map[string]route{
	string(mcp.MethodInitialize):            {"sessions", (*Transport).serveInitialize},
	string(mcp.MethodToolsCall):             {"tool calls", (*Transport).serveToolCall},
	string(mcp.MethodResourcesRead):         {"resources", (*Transport).serveResourceRequest},
	string(mcp.MethodResourcesList):         {"resources", (*Transport).serveResourceRequest},
	string(mcp.MethodResourcesSubscribe):    {"subscriptions", (*Transport).serveSubscribe},
	string(mcp.MethodResourcesUnsubscribe):  {"subscriptions", (*Transport).serveSubscribe},
	string(mcp.MethodSubscriptionsListen):   {"notices", (*Transport).serveWithNotices},
	string(mcp.MethodSetLogLevel):           {"notices", (*Transport).serveWithNotices},
	string(mcp.MethodNotificationCancelled): {"cancellation", (*Transport).serveCancelled},
	string(mcp.MethodPromptsGet):            {"prompts", (*Transport).servePromptsGet},
}

// Routes by what a method starts with, and for answers (which have none).
var (
	filesRoute  = route{"file transfer", (*Transport).serveFilesRequest}
	tasksRoute  = route{"tasks", (*Transport).serveTasksRequest}
	answerRoute = route{"answers", (*Transport).serveAnswer}
	mcpGoRoute  = route{"mcp-go", (*Transport).serveByMCPGo}
)

// routeOf is the route of a message.
func routeOf(env envelope) route {
	switch {
	case env.answer:
		return answerRoute
	case isFilesMethod(env.method):
		return filesRoute
	case isTaskMethod(env.method):
		return tasksRoute
	}
	if rt, ok := routes[env.method]; ok {
		return rt
	}
	return mcpGoRoute
}

// serveMessage serves one JSON-RPC message (a POST's body, read into env),
// or a GET or DELETE, of the caller in ctx.
func (t *Transport) serveMessage(ctx context.Context, w http.ResponseWriter, r *http.Request, env envelope, started time.Time) {
	m := &inbound{ctx: ctx, w: w, r: r, env: env, userID: callerIDFrom(ctx), started: started}
	defer func() {
		for i := len(m.after) - 1; i >= 0; i-- {
			m.after[i]()
		}
	}()
	if r.Method != http.MethodPost {
		t.serveWithNotices(m) // GET streams, DELETE ends them
		return
	}
	for _, c := range checks {
		if !c.pass(t, m) {
			return
		}
	}
	routeOf(m.env).serve(t, m)
}

// serveByMCPGo hands mcp-go the message as it now stands.
func (t *Transport) serveByMCPGo(m *inbound) {
	if rewrite := t.filesRewrite(m.ctx, m.env.method, m.env.tool); rewrite != nil {
		t.serveRewritten(m.w, m.r.WithContext(m.ctx), m.env.body, rewrite)
		return
	}
	sw := &statusWriter{ResponseWriter: m.w, status: http.StatusOK, watch: m.watch}
	t.handOver(sw, m.r.WithContext(m.ctx), m.env.body)
	if m.env.method == string(mcp.MethodInitialize) {
		if id := sw.Header().Get(server.HeaderKeySessionID); id != "" {
			t.forgetHere(id)
		}
	}
	// Tool calls are logged with their outcome by logToolCall.
	if m.env.method != string(mcp.MethodToolsCall) || m.env.tool == "" {
		m.logged(t.opts.Log.Debug, sw.status)
	}
}

// handOver has mcp-go serve r with body, the bytes the transport read (and
// perhaps rewrote): mcp-go's ServeHTTP would read the body again into a
// copy of its own.
func (t *Transport) handOver(w http.ResponseWriter, r *http.Request, body []byte) {
	t.http.Handle(mcpGoWriter{w}, &server.HTTPRequest{Method: r.Method, URL: r.URL, Header: r.Header, Body: body, Context: r.Context()})
}

// mcpGoWriter is a response writer as mcp-go's Handle takes it: it streams
// when the writer flushes, as mcp-go's own adapter decides.
type mcpGoWriter struct{ http.ResponseWriter }

func (w mcpGoWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w mcpGoWriter) CanStream() bool {
	_, ok := w.ResponseWriter.(http.Flusher)
	return ok
}

// The checks.

func (t *Transport) answerSmall(m *inbound) bool {
	if len(m.env.body) <= MaxAnswerBytes || !m.env.answer {
		return true
	}
	refuseAnswer(m.w, http.StatusRequestEntityTooLarge, fmt.Sprintf(
		"This answer is %d KiB; an answer to a question from Mattermost is at most %d KiB. Nothing was delivered or stored: answer again with only what the question asks for.",
		len(m.env.body)>>10, MaxAnswerBytes>>10))
	m.logged(t.opts.Log.Info, http.StatusRequestEntityTooLarge)
	return false
}

func (t *Transport) choiceKnown(m *inbound) bool {
	var refused bool
	if m.ctx, refused = t.withRequestChoice(m.ctx, m.w, m.r, m.env); refused {
		m.logged(t.opts.Log.Info, http.StatusOK, "invalid_choice", true)
		return false
	}
	return true
}

func (t *Transport) signInNoted(m *inbound) bool {
	if m.r.Header.Get(server.HeaderKeySessionID) == "" && m.env.method != string(mcp.MethodInitialize) {
		t.noteSignIn(m.userID, MattermostSession(m.ctx), len(m.env.body), m.env)
	}
	return true
}

func (t *Transport) filesDeclared(m *inbound) bool {
	m.ctx = withDeclaredFiles(m.ctx, m.r, m.env)
	return true
}

func (t *Transport) waitSharesCarried(m *inbound) bool {
	m.ctx = t.withWaitShares(m.ctx)
	return true
}

func (t *Transport) withinRate(m *inbound) bool {
	if m.env.method == string(mcp.MethodToolsCall) {
		return !t.refuseCall(m)
	}
	return !t.refuseRated(m)
}

// The routes.

// servePromptsGet refuses a prompts/get whose params break their form
// with an invalid-params error naming the form (Options.InvalidParams).
func (t *Transport) servePromptsGet(m *inbound) {
	if t.opts.InvalidParams != nil {
		if why := t.opts.InvalidParams(m.ctx, m.env.method, m.env.rawParams()); why != "" {
			writeRPCError(m.w, http.StatusOK, m.env.requestID(), mcp.INVALID_PARAMS, why)
			m.logged(t.opts.Log.Info, http.StatusOK, "invalid_params", true)
			return
		}
	}
	t.serveByMCPGo(m)
}

func (t *Transport) serveInitialize(m *inbound) {
	held, ok := t.reserveSession(m.w, m.userID, m.env.requestID())
	if !ok {
		m.logged(t.opts.Log.Info, http.StatusServiceUnavailable)
		return
	}
	m.ctx = withReservation(m.ctx, held)
	m.later(func() { t.releaseUnstored(m.userID, held) })
	t.serveByMCPGo(m)
}

// serveToolCall serves a tools/call: its files' arguments read, then as a
// task, or asking its client through its session's question slot and
// cancellable from any node, and its answer's files rewritten.
func (t *Transport) serveToolCall(m *inbound) {
	if rpcErr := t.filesArguments(m.ctx, &m.env); rpcErr != nil {
		writeRPCErrorData(m.w, errorStatus(m.r, m.env, rpcErr.Code), m.env.requestID(), rpcErr.Code, rpcErr.Message, rpcErr.Data)
		return
	}
	var task *TaskCall
	m.ctx, task = t.taskCall(m.ctx, m.r, &m.env)
	if rec := t.ownSession(m); rec != nil {
		if canBeAsked(rec) {
			// A call that asks takes its session's question slot (see
			// answers.go); it is freed once mcp-go answered, when it no
			// longer routes answers to this call.
			ctx := m.ctx
			c := t.questions.open(rec.ID, func() func() { return t.collectAnswers(ctx, m.r, rec.ID) })
			m.later(c.close)
			m.ctx = context.WithValue(m.ctx, questionSlotKey{}, c)
		}
		if task == nil { // a task's call waits for nobody; tasks/cancel withdraws its write
			// A call that waits can be cancelled from any node (cancel.go).
			var release context.CancelFunc
			m.ctx, release = t.cancellable(m.ctx, m.userID, rec.ID, m.env)
			m.later(release)
		}
	}
	if task != nil {
		t.serveTaskCall(m.ctx, m.w, m.r, m.env, task)
		return
	}
	m.watch = &responseWatch{}
	m.ctx = context.WithValue(m.ctx, responseWatchKey{}, m.watch)
	t.serveByMCPGo(m)
}

func (t *Transport) serveResourceRequest(m *inbound) {
	var handled bool
	if m.ctx, handled = t.serveResource(m.ctx, m.w, m.r, m.env); handled {
		return
	}
	t.serveByMCPGo(m)
}

func (t *Transport) serveSubscribe(m *inbound) {
	if t.serveSubscription(m.ctx, m.w, m.env) {
		return
	}
	t.serveByMCPGo(m)
}

func (t *Transport) serveFilesRequest(m *inbound) {
	if t.opts.Files != nil && t.refuseWithheldFiles(m) {
		return
	}
	t.serveFiles(m.ctx, m.w, m.r, m.env)
	m.logged(t.opts.Log.Debug, http.StatusOK)
}

func (t *Transport) serveTasksRequest(m *inbound) {
	if t.opts.Tasks == nil {
		t.serveByMCPGo(m)
		return
	}
	t.serveTaskMethod(m.ctx, m.w, m.r, m.env)
	m.logged(t.opts.Log.Debug, http.StatusOK)
}

func (t *Transport) serveCancelled(m *inbound) {
	if rec := t.ownSession(m); rec != nil {
		t.cancelCall(m.userID, rec.ID, m.env)
	}
	t.serveByMCPGo(m)
}

func (t *Transport) serveAnswer(m *inbound) {
	rec := t.ownSession(m)
	if rec == nil {
		t.serveByMCPGo(m)
		return
	}
	t.relayAnswer(m.ctx, m.w, m.r, rec, m.env)
	m.logged(t.opts.Log.Info, http.StatusOK)
}

// serveWithNotices serves the notices' part (getstream.go, logging.go): a
// GET stream, DELETE's end of streams, logging/setLevel and the bound on
// subscriptions/listen; what it leaves goes to mcp-go.
func (t *Transport) serveWithNotices(m *inbound) {
	ctx, release, answered := t.serveNotices(m.ctx, m.w, m.r, &m.env)
	if answered {
		return
	}
	m.ctx = ctx
	m.later(release)
	t.serveByMCPGo(m)
}
