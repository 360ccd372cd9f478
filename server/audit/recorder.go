package audit

import (
	"sync"
	"time"
)

const (
	// queueLength bounds the entries waiting for this process's writer: at
	// ~300 bytes each, 300 KiB. A burst beyond it (the KV store stalled) is
	// logged entry by entry rather than held.
	queueLength = 1024
	// maxBatch is how many waiting entries one write takes: a few chunks'
	// worth in one reservation of the day's head.
	maxBatch = chunkEntries
	// closeWait bounds how long deactivating waits for the queue to drain.
	closeWait = 5 * time.Second
	// repeatedFlush is how long the count of repeated connections waits for
	// the next batch before it is written alone: during a flood of
	// connections, one write of the day's head per node every 10 seconds.
	repeatedFlush = 10 * time.Second
)

// Logger is the plugin API's key-value logger.
type Logger interface {
	Info(msg string, keyValuePairs ...any)
	Warn(msg string, keyValuePairs ...any)
	Error(msg string, keyValuePairs ...any)
}

// Options wire the trail to the plugin.
type Options struct {
	Store *Store
	// Usage, when set, notes who used MCP with which client each day.
	Usage *Usage
	// Sink gets every entry too: Mattermost's own audit log (nil: none).
	Sink func(Event)
	Log  Logger
	Now  func() time.Time
}

// Trail is the Recorder the plugin gives everyone who records: Record puts
// the entry on a bounded queue and returns; one writer per process stores
// the queue in batches and hands each entry to the sink.
type Trail struct {
	opts  Options
	queue chan item
	done  chan struct{}
	// mu guards closed: a Record after Close is logged, never sent on the
	// closed queue.
	mu     sync.RWMutex
	closed bool
	conns  connections
}

// item is one thing for the writer: an entry, or a use of MCP to note.
type item struct {
	ev    Event
	usage bool
}

// NewTrail starts the writer; Close stops it.
func NewTrail(o Options) *Trail {
	if o.Now == nil {
		o.Now = time.Now
	}
	t := &Trail{opts: o, queue: make(chan item, queueLength), done: make(chan struct{})}
	go t.write()
	return t
}

// Record queues an entry, stamped now when it has no time. It never blocks:
// with the queue full, the entry goes to the server log instead.
func (t *Trail) Record(ev Event) {
	if ev.At.IsZero() {
		ev.At = t.opts.Now()
	}
	ev = Bounded(ev)
	if ev.Kind == KindConnection && ev.Reason == ReasonConnected && !t.conns.admit(ev.At, ev.UserID, ev.ClientName) {
		return
	}
	if !t.send(item{ev: ev}) {
		t.logLost("The audit queue is full or closed; this entry is only in the server log", ev)
	}
}

// send queues it without waiting; false when the queue is full or closed.
func (t *Trail) send(it item) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.closed {
		return false
	}
	select {
	case t.queue <- it:
		return true
	default:
		return false
	}
}

// Used notes that userID used MCP with the client named client today. It
// never blocks; a note that does not fit the queue is skipped (usage is a
// count, not a record).
func (t *Trail) Used(userID, client string) {
	if t.opts.Usage == nil || userID == "" || !t.opts.Usage.firstToday(t.opts.Now(), userID, client) {
		return
	}
	t.send(item{ev: Event{At: t.opts.Now(), UserID: userID, ClientName: cut(client, maxClientNameBytes)}, usage: true})
}

// Close stops taking entries and waits, a bounded time, for those queued
// to be stored.
func (t *Trail) Close() error {
	t.mu.Lock()
	if !t.closed {
		t.closed = true
		close(t.queue)
	}
	t.mu.Unlock()
	select {
	case <-t.done:
	case <-time.After(closeWait):
		t.opts.Log.Warn("Stopped before every queued audit entry was stored; they are in Mattermost's audit log")
	}
	return nil
}

func (t *Trail) write() {
	defer close(t.done)
	tick := time.NewTicker(repeatedFlush)
	defer tick.Stop()
	for {
		var first item
		select {
		case it, ok := <-t.queue:
			if !ok {
				t.store(nil) // the repeated connections counted last
				return
			}
			first = it
		case <-tick.C:
			t.store(nil)
			continue
		}
		batch := []item{first}
	more:
		for len(batch) < maxBatch {
			select {
			case it, ok := <-t.queue:
				if !ok {
					break more
				}
				batch = append(batch, it)
			default:
				break more
			}
		}
		t.store(batch)
	}
}

// store writes a batch: the entries to the sink and, by day, to the store,
// with the repeated connections counted since the last write; the uses to
// the usage record.
func (t *Trail) store(batch []item) {
	byDay := map[string][]Event{}
	repeated := t.conns.take()
	var days []string
	for _, it := range batch {
		if it.usage {
			if err := t.opts.Usage.note(it.ev.At, it.ev.UserID, it.ev.ClientName); err != nil {
				t.opts.Log.Warn("Could not note a use of MCP for the admin's count", "user_id", it.ev.UserID, "error", err.Error())
			}
			continue
		}
		if t.opts.Sink != nil {
			t.opts.Sink(it.ev)
		}
		day := Day(it.ev.At)
		if _, ok := byDay[day]; !ok {
			days = append(days, day)
		}
		byDay[day] = append(byDay[day], it.ev)
	}
	for day := range repeated {
		if _, ok := byDay[day]; !ok {
			days = append(days, day)
		}
	}
	for _, day := range days {
		evs := byDay[day]
		res, err := t.opts.Store.appendCounting(day, evs, repeated[day])
		for _, ev := range res.dropped {
			t.logLost("The audit trail reached its cap for the day; this entry is only in Mattermost's audit log and the server log", ev)
		}
		for _, ev := range res.cut {
			t.logLost("The person's share of the day's audit trail is used; this entry is only in Mattermost's audit log and the server log", ev)
		}
		if err != nil {
			lost := res.placed[res.stored:]
			t.opts.Log.Error("Could not store audit entries; they are in Mattermost's audit log", "lost", len(lost),
				"repeated_connections_uncounted", repeated[day], "error", err.Error())
			for _, ev := range lost {
				t.logLost("An audit entry that could not be stored", ev)
			}
		}
	}
}

// logLost writes an entry to the server log: its fields are ids, names and
// short codes, never text.
func (t *Trail) logLost(msg string, ev Event) {
	t.opts.Log.Warn(msg, "at", ev.At.Format(time.RFC3339Nano), "kind", string(ev.Kind), "user_id", ev.UserID, "tool", ev.Tool,
		"outcome", ev.Outcome, "reason", ev.Reason, "client", ev.ClientName, "client_version", ev.ClientVersion, "targets", ev.Targets)
}
