package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

const (
	// resultPoll is how often a held tasks/result reads its write again:
	// the answer can come on any node, so it is read from the KV store,
	// as a waiting call reads it.
	resultPoll = 300 * time.Millisecond
	// maxHeldResults bounds the tasks/result requests one node holds
	// open at once, each a goroutine and an open request of a few KiB, as
	// the node bounds its notice streams; past it the client is told to
	// poll tasks/get.
	maxHeldResults = 1000
	// serverBusy is the JSON-RPC error of a request refused at a bound.
	serverBusy = -32000
)

// Service answers for the tasks of every person.
type Service struct {
	Store  *Store
	Writes Writes
	// MayWait is whether a call of a tool may wait longer than a call
	// holds (catalogue.Tool.MayWait).
	MayWait func(tool string) bool
	held    chan struct{}
}

// NewService answers tasks from store, following writes.
func NewService(store *Store, writes Writes, mayWait func(string) bool) *Service {
	return &Service{Store: store, Writes: writes, MayWait: mayWait, held: make(chan struct{}, maxHeldResults)}
}

var _ transport.Tasks = (*Service)(nil)

// Supports is whether a call of tool may be a task.
func (s *Service) Supports(tool string) bool { return s.MayWait(tool) }

// Created stores the task of a call the tool answered and words its
// CreateTaskResult: a task that follows the write waiting for the person,
// or one already ended with the call's result (refused, or done at once).
func (s *Service) Created(ctx context.Context, userID, session string, call *transport.TaskCall) (map[string]any, error) {
	rec := Record{ID: call.ID, UserID: userID, Tool: call.Tool, WriteID: call.WriteID(), Reply: call.Reply(), Session: session, ShowsPages: call.ShowsPages}
	if rec.WriteID == "" && rec.Reply == nil {
		raw, err := json.Marshal(call.Result())
		if err != nil {
			return nil, err
		}
		rec.End = &End{Result: raw}
	}
	rec, err := s.Store.Create(rec)
	if err != nil {
		return nil, err
	}
	v, err := s.view(ctx, rec)
	if err != nil {
		return nil, err
	}
	return createResult(v, call.Modern), nil
}

// view reads where a task stands, keeping its end once its write settled.
func (s *Service) view(ctx context.Context, rec Record) (view, error) {
	if rec.End != nil {
		return ended(rec), nil
	}
	var w Write
	var err error
	if rec.Reply != nil {
		w, err = s.Writes.FollowReply(ctx, rec.UserID, *rec.Reply)
	} else {
		w, err = s.Writes.Follow(ctx, rec.UserID, rec.Tool, rec.WriteID)
	}
	if err != nil {
		return view{}, err
	}
	v := view{rec: rec, message: w.Message}
	switch w.State {
	case Waiting:
		v.status = mcp.TaskStatusInputRequired
		if rec.ShowsPages && !rec.Shown {
			v.question = w.Question
		}
		return v, nil
	case Working:
		v.status = mcp.TaskStatusWorking
		return v, nil
	}
	raw, err := json.Marshal(w.Result)
	if err != nil {
		return view{}, err
	}
	end := &End{Cancelled: w.State == Withdrawn, Result: raw}
	if kept, err := s.Store.Update(rec.UserID, rec.ID, func(r *Record) {
		if r.End == nil {
			r.End = end
		}
	}); err == nil {
		rec = kept
	} else {
		rec.End = end
	}
	return ended(rec), nil
}

// ended is the view of a task that ended.
func ended(rec Record) view {
	v := view{rec: rec, status: mcp.TaskStatusCompleted, result: rec.End.Result}
	switch {
	case rec.End.Cancelled && rec.Reply != nil:
		v.status = mcp.TaskStatusCancelled
		v.message = "The client cancelled the wait for a reply."
	case rec.End.Cancelled:
		v.status = mcp.TaskStatusCancelled
		v.message = "The client cancelled the task before the person answered, so the write was withdrawn: nothing was sent."
	}
	return v
}

// Listen has the listen stream hear when each of the caller's tasks among
// ids ends, and answers those ids; another person's and unknown ids are
// left out, as a listen stream acknowledges only what it serves.
func (s *Service) Listen(_ context.Context, userID, stream string, ids []string) []string {
	var out []string
	for _, id := range ids {
		if _, err := s.Store.Update(userID, id, func(r *Record) { r.Listen = stream }); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// ListenNotice is the notice a 2026-07-28 listen stream that asked for
// the person's task id hears once its write moved on
// (notifications/tasks, the task as tasks/get details it), and the
// stream; "" when none asked.
func (s *Service) ListenNotice(ctx context.Context, userID, id string) (string, map[string]any, error) {
	rec, err := s.Store.Load(userID, id)
	if err != nil || rec.Listen == "" {
		return "", nil, err
	}
	v, err := s.view(ctx, rec)
	if err != nil {
		return "", nil, err
	}
	return rec.Listen, extensionTask(v, true), nil
}

// Status is the person's task id as notifications/tasks/status carries it
// (protocol 2025-11-25), once its write moved on.
func (s *Service) Status(ctx context.Context, userID, id string) (map[string]any, error) {
	rec, err := s.Store.Load(userID, id)
	if err != nil {
		return nil, err
	}
	v, err := s.view(ctx, rec)
	if err != nil {
		return nil, err
	}
	return coreTask(v), nil
}

// Serve answers a tasks/* request of the caller.
func (s *Service) Serve(ctx context.Context, userID string, req transport.TaskRequest) (any, *transport.RPCError) {
	switch {
	case req.Modern && (req.Method == string(mcp.MethodTasksList) || req.Method == string(mcp.MethodTasksResult)):
		return nil, &transport.RPCError{Code: mcp.METHOD_NOT_FOUND, Message: req.Method + " is not part of protocol 2026-07-28's tasks: call tasks/get, which inlines the result once the task ended."}
	case !req.Modern && req.Method == methodUpdate:
		return nil, &transport.RPCError{Code: mcp.METHOD_NOT_FOUND, Message: "tasks/update is part of protocol 2026-07-28's tasks only."}
	case req.Modern && !req.Declared:
		return nil, &transport.RPCError{Code: mcp.MISSING_REQUIRED_CLIENT_CAPABILITY,
			Message: "Declare the tasks extension (" + transport.TasksExtension + ") in this request's client capabilities to use tasks.",
			Data:    map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{transport.TasksExtension: map[string]any{}}}}}
	}
	if req.Method == string(mcp.MethodTasksList) {
		return s.list(ctx, userID)
	}
	var p struct {
		TaskID string `json:"taskId"`
	}
	if json.Unmarshal(req.Params, &p) != nil || p.TaskID == "" {
		return nil, invalid("params.taskId is missing: send the taskId a tools/call answered.")
	}
	rec, err := s.Store.Load(userID, p.TaskID)
	if errors.Is(err, ErrNotFound) {
		return nil, invalid(fmt.Sprintf("No task %.64q is yours: it ended more than %d minutes after it began, or the id is wrong. Call the tool again if the person still wants the write.",
			p.TaskID, int(Lifetime.Minutes())))
	}
	if err != nil {
		return nil, failed(err)
	}
	switch req.Method {
	case string(mcp.MethodTasksGet):
		v, err := s.view(ctx, rec)
		if err != nil {
			return nil, failed(err)
		}
		return detailed(v, req.Modern), nil
	case string(mcp.MethodTasksResult):
		return s.result(ctx, rec)
	case string(mcp.MethodTasksCancel):
		return s.cancel(ctx, rec, req.Modern)
	case methodUpdate:
		return s.update(ctx, rec, req.Params)
	}
	return nil, &transport.RPCError{Code: mcp.METHOD_NOT_FOUND, Message: fmt.Sprintf("There is no task method %.64q: the methods are tasks/get, tasks/cancel and, by protocol, tasks/result, tasks/list or tasks/update.", req.Method)}
}

const methodUpdate = "tasks/update"

func invalid(msg string) *transport.RPCError {
	return &transport.RPCError{Code: mcp.INVALID_PARAMS, Message: msg}
}

func failed(err error) *transport.RPCError {
	return &transport.RPCError{Code: mcp.INTERNAL_ERROR, Message: "Mattermost could not read the task (" + err.Error() + "); try again shortly."}
}

// list is tasks/list on 2025-11-25: the caller's own tasks, every one (at
// most MaxPerPerson, so in one page).
func (s *Service) list(ctx context.Context, userID string) (any, *transport.RPCError) {
	recs, err := s.Store.List(userID)
	if err != nil {
		return nil, failed(err)
	}
	out := make([]map[string]any, 0, len(recs))
	for _, rec := range recs {
		v, err := s.view(ctx, rec)
		if err != nil {
			return nil, failed(err)
		}
		out = append(out, coreTask(v))
	}
	return map[string]any{"tasks": out}, nil
}

// result is tasks/result on 2025-11-25: held until the task ended, then
// the call's own result. The write ends within its lifetime (answered,
// withdrawn or expired), so the wait does too; a client that goes away
// ends it sooner.
func (s *Service) result(ctx context.Context, rec Record) (any, *transport.RPCError) {
	select {
	case s.held <- struct{}{}:
		defer func() { <-s.held }()
	default:
		return nil, &transport.RPCError{Code: serverBusy, Message: "This Mattermost holds as many task results open as it may: poll tasks/get instead, every few seconds."}
	}
	release, held, ok := transport.HoldWait(ctx)
	defer release()
	if !ok {
		return nil, &transport.RPCError{Code: serverBusy, Message: transport.WaitsFull(held) + " Poll tasks/get instead, every few seconds, or call tasks/result again once another of your requests has answered."}
	}
	tick := time.NewTicker(resultPoll)
	defer tick.Stop()
	for {
		v, err := s.view(ctx, rec)
		if err != nil {
			return nil, failed(err)
		}
		if v.terminal() {
			out, err := coreResult(v)
			if err != nil {
				return nil, failed(err)
			}
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, &transport.RPCError{Code: mcp.REQUEST_INTERRUPTED, Message: "The request ended before the task did: call tasks/result or tasks/get again."}
		case <-tick.C:
		}
	}
}

// cancel withdraws the write of a task that has not ended. On 2025-11-25
// a task that ended cannot be cancelled; on 2026-07-28 the answer is the
// same empty acknowledgement either way.
func (s *Service) cancel(ctx context.Context, rec Record, modern bool) (any, *transport.RPCError) {
	v, err := s.view(ctx, rec)
	if err != nil {
		return nil, failed(err)
	}
	if v.terminal() {
		if modern {
			return ack(), nil
		}
		return nil, invalid(fmt.Sprintf("The task already ended (%s): there is nothing to cancel. Call tasks/result for its outcome.", v.status))
	}
	if rec.Reply != nil {
		// Nothing waits but the client: the wait ends here.
		raw, _ := json.Marshal(mcp.NewToolResultText("The wait for a reply was cancelled by the client."))
		if _, err := s.Store.Update(rec.UserID, rec.ID, func(r *Record) {
			if r.End == nil {
				r.End = &End{Cancelled: true, Result: raw}
			}
		}); err != nil {
			return nil, failed(err)
		}
		rec, _ = s.Store.Load(rec.UserID, rec.ID)
	} else if err := s.Writes.Withdraw(ctx, rec.UserID, rec.WriteID); err != nil {
		return nil, failed(err)
	}
	if v, err = s.view(ctx, rec); err != nil {
		return nil, failed(err)
	}
	if modern {
		return ack(), nil
	}
	return coreTask(v), nil
}

// update takes a 2026-07-28 client's answer to the page its task showed:
// an accept means the person went to the page, whose answer decides; a
// decline or a dismissal declines the write. Answers to anything else are
// ignored, as the extension says.
func (s *Service) update(ctx context.Context, rec Record, params json.RawMessage) (any, *transport.RPCError) {
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if json.Unmarshal(params, &p) != nil || p.InputResponses == nil {
		return nil, invalid("params.inputResponses is missing: send the answers keyed as the task's inputRequests are.")
	}
	raw, ok := p.InputResponses[rec.WriteID]
	if !ok || rec.WriteID == "" || rec.Shown || !rec.ShowsPages {
		return ack(), nil
	}
	var answer mcp.ElicitationResult
	if json.Unmarshal(raw, &answer) != nil {
		return nil, invalid("The answer to the page is not an elicitation result: send {\"action\": \"accept\"} once the person opened it, or \"decline\" or \"cancel\".")
	}
	if answer.Action != mcp.ElicitationResponseActionAccept {
		if err := s.Writes.Decline(ctx, rec.UserID, rec.WriteID); err != nil {
			return nil, failed(err)
		}
	}
	if _, err := s.Store.Update(rec.UserID, rec.ID, func(r *Record) { r.Shown = true }); err != nil {
		return nil, failed(err)
	}
	return ack(), nil
}
