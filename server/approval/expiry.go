package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// A pending write that nobody answers leaves the KV store when its time is
// up, and nothing happens at that moment to record it. So every asked write
// is listed in one index of open writes, with what its audit entry needs,
// and the cluster's minute job (ExpireWrites) records as expired each one
// whose record is gone; one answered in time is dropped from the list, its
// steps already recorded.

const (
	openPrefix = "pcx_open_"
	// openShards spreads the index over keys by the person's id, so that
	// one key stays under kvstore.MaxValueBytes and writers of different
	// people rarely race.
	openShards = 16
	// maxOpenWrites bounds one shard: an entry takes at most about 1,040
	// bytes (its ids and the client's name at their bounds, and the ids
	// of up to 10 files received for it), so 1,000 stay under 1 MiB;
	// 16,000 writes asked within ten minutes in all. Past it the oldest is
	// dropped: its expiry goes unrecorded, and files received for it stay
	// as an upload nobody posted, seen by nobody else.
	maxOpenWrites = 1000
)

func openKey(userID string) string {
	h := fnv.New32a()
	h.Write([]byte(userID))
	return fmt.Sprintf("%s%02d", openPrefix, h.Sum32()%openShards)
}

type openWrite struct {
	UserID        string            `json:"u"`
	ID            string            `json:"r"`
	Expires       time.Time         `json:"e"`
	Tool          string            `json:"t,omitempty"`
	ClientName    string            `json:"cn,omitempty"`
	ClientVersion string            `json:"cv,omitempty"`
	Targets       map[string]string `json:"g,omitempty"`
	// Session is the MCP session still showing a url-mode question about
	// the write (Record.QuestionOpen), told when the write expires.
	Session string `json:"s,omitempty"`
	// Uploads are the files received for the write (at most
	// posting.MaxFiles ids, about 300 bytes), discarded when it expires.
	Uploads []string `json:"f,omitempty"`
}

// noteOpen lists a new pending write for the expiry job. Only the audit
// needs it, so a failure is logged by the job's absence of an entry, not
// refused: the write goes on.
func (s *Store) noteOpen(rec Record) {
	uploads := uploadsOf(&rec)
	if s.Audit == nil && len(uploads) == 0 {
		return
	}
	o := openWrite{UserID: rec.UserID, ID: rec.ID, Expires: rec.ExpiresAt(), Tool: rec.Tool, ClientName: rec.ClientName,
		ClientVersion: rec.ClientVersion, Targets: rec.Targets, Uploads: uploads}
	err := s.updateOpen(openKey(rec.UserID), func(open []openWrite) []openWrite {
		if len(open) >= maxOpenWrites {
			open = open[1:]
		}
		return append(open, o)
	})
	if err != nil && s.Audit != nil {
		s.Audit.Record(audit.Event{At: s.Now(), Kind: audit.KindWrite, UserID: rec.UserID, Tool: rec.Tool, Outcome: audit.OutcomeAsked,
			Reason: "expiry_not_tracked", Targets: map[string]string{"write_id": rec.ID}})
	}
}

// noteQuestionOpen notes on the write's entry the MCP session that still
// shows a url-mode question about it, so that the expiry job tells it the
// question is over. Without the audit there is no entry, and the question
// is told over only when the write is answered or withdrawn.
func (s *Store) noteQuestionOpen(rec Record) error {
	if s.Audit == nil {
		return nil
	}
	return s.updateOpen(openKey(rec.UserID), func(open []openWrite) []openWrite {
		for i := range open {
			if open[i].UserID == rec.UserID && open[i].ID == rec.ID {
				open[i].Session = rec.MCPSession
			}
		}
		return open
	})
}

func (s *Store) updateOpen(key string, change func([]openWrite) []openWrite) error {
	return kvstore.Update(s.KV, key, func(raw []byte) (kvstore.Change, error) {
		var open []openWrite
		if raw != nil && json.Unmarshal(raw, &open) != nil {
			open = nil // a broken index starts again
		}
		next, err := json.Marshal(change(open))
		return kvstore.Change{Value: next}, err
	})
}

// ExpireWrites records the writes that expired unanswered and forgets the
// ones answered; it runs on one node of the cluster at a time, every
// minute, and answers how many it recorded as expired.
func (a *Approvals) ExpireWrites(now time.Time) (int, error) {
	expired := 0
	for shard := range openShards {
		n, err := a.expireShard(fmt.Sprintf("%s%02d", openPrefix, shard), now)
		expired += n
		if err != nil {
			return expired, err
		}
	}
	return expired, nil
}

func (a *Approvals) expireShard(key string, now time.Time) (int, error) {
	s := a.store
	raw, err := s.KV.Get(key)
	if err != nil || raw == nil {
		return 0, err
	}
	var open []openWrite
	if err := json.Unmarshal(raw, &open); err != nil {
		return 0, errors.Join(fmt.Errorf("the list of open writes is damaged and starts again: %w", err), s.KV.Delete(key))
	}
	done := map[string]bool{}
	expired := 0
	for _, o := range open {
		rec, err := s.loadHead(o.UserID, o.ID)
		switch {
		case errors.Is(err, ErrNotFound):
			// The KV store dropped it unanswered (a pending record is never
			// tidied away before its time); it expired by then at the latest.
			at := o.Expires
			if now.Before(at) {
				at = now
			}
			targets := map[string]string{"write_id": o.ID}
			for k, v := range o.Targets {
				targets[k] = v
			}
			if s.Audit != nil {
				s.Audit.Record(audit.Event{At: at, Kind: audit.KindWrite, UserID: o.UserID, ClientName: o.ClientName,
					ClientVersion: o.ClientVersion, Tool: o.Tool, Targets: targets, Outcome: audit.OutcomeExpired})
			}
			s.discard(o.UserID, o.Uploads)
			a.wakeCall(o.ID)
			if a.opts.Settled != nil {
				a.opts.Settled(Record{ID: o.ID, UserID: o.UserID, State: StateExpired, AnsweredAt: at, Tool: o.Tool,
					MCPSession: o.Session, QuestionOpen: o.Session != ""})
			}
			expired++
			done[o.ID] = true
		case err != nil:
			return expired, err
		case rec.State != StatePending:
			done[o.ID] = true // answered: its steps are recorded
		}
	}
	if len(done) == 0 {
		return 0, nil
	}
	return expired, s.updateOpen(key, func(open []openWrite) []openWrite {
		out := open[:0]
		for _, o := range open {
			if !done[o.ID] {
				out = append(out, o)
			}
		}
		return out
	})
}
