package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// The rate per person: at most Options.MaxCallsPerMinute tool calls (and
// requests of the workspace's side channel) in any minute, per person, on
// this node. Each node counts its own: a cluster of n nodes lets a person
// make up to n times the limit, which still stops a runaway loop and costs
// no shared store a write per call. On /mcp everything that reads
// Mattermost for the person counts as a call: tools/call, the methods
// package paths marks Rated (resource reads and lists, completions, file
// transfer), and each tool a prompt runs (CountRead), so no request
// reads more than the rate allows. initialize, ping and the lists of tools,
// prompts and resource templates do not count: they read only the plugin's
// settings, and a client needs them to recover.

const (
	// rateWindow is the minute the limit is counted over, in one-second
	// buckets: the window slides by the second, and a refusal can say
	// exactly in how many seconds a call is admitted again.
	rateWindow = 60
	// maxRatedPeople bounds the people this node counts at once. An entry
	// is about 180 bytes, so the map stays under 3 MiB; more people calling
	// within one minute on one node than any installation has MCP users.
	// Entries without a call in the last minute are dropped first.
	maxRatedPeople = 16384
)

// rateEntry counts one person's calls of the last minute.
type rateEntry struct {
	// counts holds the calls of each second of the window, at the second
	// modulo rateWindow; uint16 is enough because a bucket never holds more
	// than the limit, which is clamped to math.MaxUint16.
	counts [rateWindow]uint16
	// newest is the unix second of the newest bucket, total the sum of
	// counts.
	newest int64
	total  int
	// auditedAt is the unix second of the last refusal written to the
	// audit trail: one a minute per person is enough to see who hit it.
	auditedAt int64
}

// advance moves the window to second sec, emptying the buckets it leaves.
// A clock that went back counts in the newest bucket.
func (e *rateEntry) advance(sec int64) {
	if sec <= e.newest {
		return
	}
	if sec-e.newest >= rateWindow {
		e.counts, e.total = [rateWindow]uint16{}, 0
	} else {
		for s := e.newest + 1; s <= sec; s++ {
			i := s % rateWindow
			e.total -= int(e.counts[i])
			e.counts[i] = 0
		}
	}
	e.newest = sec
}

// secondsUntilRoom is how many seconds from the start of the newest second
// until the window holds fewer than limit calls: the oldest buckets leave
// one a second.
func (e *rateEntry) secondsUntilRoom(limit int) int {
	left := e.total
	for k := 1; k <= rateWindow; k++ {
		left -= int(e.counts[(e.newest+int64(k))%rateWindow]) // the bucket of second newest-60+k
		if left < limit {
			return k
		}
	}
	return rateWindow
}

// rateLimiter counts every person's calls on this node.
type rateLimiter struct {
	mu      sync.Mutex
	people  map[string]*rateEntry
	sweptAt int64
}

// rateVerdict is what admit decided.
type rateVerdict struct {
	ok bool
	// retry is how long until a call would be admitted, when refused.
	retry time.Duration
	// audit is whether this refusal is the person's first recorded in the
	// last minute.
	audit bool
}

// admit counts one call of userID at now, under limit calls a minute, or
// refuses it without counting it.
func (l *rateLimiter) admit(userID string, now time.Time, limit int) rateVerdict {
	limit = min(max(limit, 1), math.MaxUint16)
	sec := now.Unix()
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.people[userID]
	if e == nil {
		e = l.add(userID, sec)
	}
	e.advance(sec)
	if e.total < limit {
		e.counts[e.newest%rateWindow]++
		e.total++
		return rateVerdict{ok: true}
	}
	k := e.secondsUntilRoom(limit)
	retry := time.Unix(e.newest+int64(k), 0).Sub(now)
	v := rateVerdict{retry: retry}
	if sec-e.auditedAt >= rateWindow {
		e.auditedAt, v.audit = sec, true
	}
	return v
}

// add makes room for and adds a person's entry: entries idle for the whole
// window go first (they count nothing), then, when every entry is in use,
// the one whose newest call is oldest (it is counted afresh).
func (l *rateLimiter) add(userID string, sec int64) *rateEntry {
	if l.people == nil {
		l.people = map[string]*rateEntry{}
	}
	if len(l.people) >= maxRatedPeople || sec-l.sweptAt >= rateWindow {
		l.sweptAt = sec
		for id, e := range l.people {
			if sec-e.newest >= rateWindow {
				delete(l.people, id)
			}
		}
	}
	if len(l.people) >= maxRatedPeople {
		oldest, at := "", int64(math.MaxInt64)
		for id, e := range l.people {
			if e.newest < at {
				oldest, at = id, e.newest
			}
		}
		delete(l.people, oldest)
	}
	e := &rateEntry{newest: sec}
	l.people[userID] = e
	return e
}

// callsPerMinute is the limit now: the setting, read on every call so a
// change applies at once.
func (t *Transport) callsPerMinute() int {
	if t.opts.MaxCallsPerMinute == nil {
		return config.DefaultMaxCallsPerMinute
	}
	if n := t.opts.MaxCallsPerMinute(); n > 0 {
		return n
	}
	return config.DefaultMaxCallsPerMinute
}

// admit counts one call or side-channel request of userID (what names the
// tool or route) against the person's rate; when refused, the first refusal
// of the person in a minute is recorded in the audit trail.
func (t *Transport) admit(userID, what string, client *SessionRecord) rateVerdict {
	now := t.now()
	v := t.rate.admit(userID, now, t.callsPerMinute())
	if !v.ok && v.audit {
		ev := audit.Event{At: now, Kind: audit.KindSignIn, UserID: userID, Tool: what,
			Outcome: audit.OutcomeRefused, Reason: "rate_limited"}
		if client != nil {
			ev.ClientName, ev.ClientVersion = client.ClientName, client.ClientVersion
		}
		t.recorder().Record(ev)
	}
	return v
}

func (t *Transport) now() time.Time {
	if t.clock != nil {
		return t.clock()
	}
	return time.Now()
}

// tooFast is what the model reads when what was refused for the rate: the
// same for a tool call, a read inside a prompt and any other request, with
// the wait in whole seconds.
func (t *Transport) tooFast(what string, wait int) string {
	return fmt.Sprintf("You are going too fast: this Mattermost server takes at most %d tool calls a minute from one person (resource reads and lists, completions and each read a prompt makes count as calls), and you made them within the last minute. %s was not run. Try again in %d seconds (not before), and make fewer calls: read larger pages, and do not repeat a call whose answer you have.",
		t.callsPerMinute(), truncate(what, 64), wait)
}

// refuseRated answers a request of a rated method of a person over their rate
// with a JSON-RPC error saying so and the wait, and reports whether it
// answered. A request in an unknown session is left to mcp-go, whose 404
// tells the client to initialize again, uncounted.
func (t *Transport) refuseRated(m *inbound) bool {
	method := m.env.method
	if !rated(method) || m.unknownSession() {
		return false
	}
	userID := m.userID
	v := t.admit(userID, method, m.session())
	if v.ok {
		return false
	}
	wait := retrySeconds(v.retry)
	t.opts.Log.Info("MCP request", "user_id", userID, "method", method, "outcome", "rate_limited",
		"max_calls_per_minute", t.callsPerMinute(), "retry_after_seconds", wait)
	writeRPCError(m.w, http.StatusOK, m.env.requestID(), rateLimitedCode, t.tooFast(method, wait))
	return true
}

type readCounterKey struct{}

// withReadCounter lets the handlers of the request count the reads they
// make beyond it (CountRead) against the person's rate.
func (t *Transport) withReadCounter(ctx context.Context, userID string, rec *SessionRecord) context.Context {
	count := func(what string) string {
		v := t.admit(userID, what, rec)
		if v.ok {
			return ""
		}
		wait := retrySeconds(v.retry)
		t.opts.Log.Info("MCP read inside a request", "user_id", userID, "tool", truncate(what, 64), "outcome", "rate_limited",
			"max_calls_per_minute", t.callsPerMinute(), "retry_after_seconds", wait)
		return t.tooFast(what, wait)
	}
	return context.WithValue(ctx, readCounterKey{}, count)
}

// CountRead counts one read a request makes for the person beyond the
// request itself (each tool a prompt runs: catch_up runs up to eight)
// against their rate, as a tool call of the tool what: "" when admitted,
// else what the model reads, that the person is going too fast and when to
// try again; then the read must not run. Outside a request of the transport
// (a test of a prompt alone) nothing is counted.
func CountRead(ctx context.Context, what string) string {
	if count, ok := ctx.Value(readCounterKey{}).(func(string) string); ok {
		return count(what)
	}
	return ""
}

// retrySeconds is a wait rounded up to whole seconds, as Retry-After and
// the model read it: a call made that many seconds later is admitted.
func retrySeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

// refuseFastCall answers a tools/call of a person over their rate with a
// tool error the model reads, without running the tool; it reports whether
// it answered.
func (t *Transport) refuseFastCall(w http.ResponseWriter, userID, tool string, id json.RawMessage, rec *SessionRecord) bool {
	v := t.admit(userID, tool, rec)
	if v.ok {
		return false
	}
	wait := retrySeconds(v.retry)
	t.opts.Log.Info("MCP tool call", "user_id", userID, "tool", truncate(tool, 64), "outcome", "rate_limited",
		"max_calls_per_minute", t.callsPerMinute(), "retry_after_seconds", wait)
	writeRefusal(w, rec, id, t.tooFast(tool, wait), fmt.Sprintf(
		"The person is over this server's rate of %d tool calls a minute; calls are refused for %d seconds.", t.callsPerMinute(), wait))
	return true
}

// LimitRequest counts one request of the workspace's side channel (route
// names it) against the person's rate. When the person is over it, it
// answers 429 with Retry-After and a one-line body, and reports false.
func (t *Transport) LimitRequest(w http.ResponseWriter, userID, route string) bool {
	v := t.admit(userID, route, nil)
	if v.ok {
		return true
	}
	wait := retrySeconds(v.retry)
	t.opts.Log.Info("Workspace request", "route", route, "user_id", userID, "status", http.StatusTooManyRequests, "retry_after_seconds", wait)
	w.Header().Set("Retry-After", strconv.Itoa(wait))
	http.Error(w, fmt.Sprintf("Too many requests: at most %d a minute per person on this Mattermost server, counting tool calls; try again in %d seconds.",
		t.callsPerMinute(), wait), http.StatusTooManyRequests)
	return false
}

// writeToolError answers a tools/call with a tool error (HTTP 200, as MCP
// answers every tool result), for a call the transport refuses itself.
func writeToolError(w http.ResponseWriter, id json.RawMessage, text string) {
	res := mcp.NewToolResultError(text)
	res.ResultType = mcp.ResultTypeComplete // required from 2026-07-28; older clients ignore it
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": res}) // the client went away
}
