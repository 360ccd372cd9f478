package tasks

import (
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// The two wire forms of a task. MCP 2025-11-25 has tasks in core: a
// CreateTaskResult wraps the task under "task", durations are "ttl" and
// "pollInterval", the result comes from tasks/result. The tasks extension
// of 2026-07-28 is flat: a CreateTaskResult is the task itself with
// resultType "task", durations are "ttlMs" and "pollIntervalMs", and
// tasks/get inlines the result, or the input the task waits for.

// view is a task as it stands now.
type view struct {
	rec     Record
	status  mcp.TaskStatus
	message string
	// question is the input request of a 2026-07-28 task that waits for
	// the client to show the person the page (nil: none).
	question *mcp.ElicitationParams
	// result is the tool's result once the task ended.
	result json.RawMessage
}

func (v view) terminal() bool { return v.status.IsTerminal() }

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// coreTask is the task in 2025-11-25's form.
func coreTask(v view) map[string]any {
	t := map[string]any{
		"taskId":        v.rec.ID,
		"status":        v.status,
		"createdAt":     stamp(v.rec.CreatedAt),
		"lastUpdatedAt": stamp(v.rec.UpdatedAt),
		"ttl":           Lifetime.Milliseconds(),
		"pollInterval":  PollInterval.Milliseconds(),
	}
	if v.message != "" {
		t["statusMessage"] = v.message
	}
	return t
}

// extensionTask is the task in 2026-07-28's form, with what its status
// inlines when detailed (tasks/get): the result, or the input requested.
func extensionTask(v view, detailed bool) map[string]any {
	t := map[string]any{
		"taskId":         v.rec.ID,
		"status":         v.status,
		"createdAt":      stamp(v.rec.CreatedAt),
		"lastUpdatedAt":  stamp(v.rec.UpdatedAt),
		"ttlMs":          Lifetime.Milliseconds(),
		"pollIntervalMs": PollInterval.Milliseconds(),
	}
	if v.message != "" {
		t["statusMessage"] = v.message
	}
	if !detailed {
		return t
	}
	switch {
	case v.status == mcp.TaskStatusCompleted && v.result != nil:
		t["result"] = v.result
	case v.status == mcp.TaskStatusInputRequired && v.question != nil:
		t["inputRequests"] = map[string]any{v.rec.WriteID: map[string]any{
			"method": string(mcp.MethodElicitationCreate),
			"params": v.question,
		}}
	}
	return t
}

// createResult is the CreateTaskResult a call is answered with.
func createResult(v view, modern bool) map[string]any {
	if !modern {
		return map[string]any{"task": coreTask(v)}
	}
	t := extensionTask(v, false)
	t["resultType"] = "task"
	return t
}

// detailed is tasks/get's answer.
func detailed(v view, modern bool) map[string]any {
	if !modern {
		return coreTask(v)
	}
	t := extensionTask(v, true)
	t["resultType"] = string(mcp.ResultTypeComplete)
	return t
}

// ack is the empty answer of tasks/cancel and tasks/update on 2026-07-28.
func ack() map[string]any { return map[string]any{"resultType": string(mcp.ResultTypeComplete)} }

// coreResult is tasks/result's answer on 2025-11-25: the call's own result,
// tied to its task.
func coreResult(v view) (map[string]any, error) {
	out := map[string]any{}
	if v.result != nil {
		if err := json.Unmarshal(v.result, &out); err != nil {
			return nil, err
		}
	}
	if _, ok := out["content"]; !ok {
		out["content"] = []any{}
	}
	meta, _ := out["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.RelatedTaskMetaKey] = mcp.RelatedTaskMeta(v.rec.ID)
	out["_meta"] = meta
	return out, nil
}
