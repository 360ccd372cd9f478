package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Each person's records are found through one index record that names
// them: it is what counts their waiting writes against the cap, keeps the
// newest outcomes within its bound, and drops the ids of records that
// expired.

// tooManyPending refuses a new write when the person already has the most
// writes waiting for them.
func tooManyPending(live []Record) error {
	n := 0
	for _, r := range live {
		if r.State == StatePending {
			n++
		}
	}
	if n < MaxPendingPerPerson {
		return nil
	}
	return refusal.Newf("%d writes already wait for the person's answer, the most one person can have waiting; nothing was stored or sent. "+
		"Call get_pending to see them, and ask the person to answer them in Mattermost (an unanswered one expires %d minutes after it was asked) before asking again.",
		n, int(PendingLifetime.Minutes()))
}

// keepNewest keeps every waiting record and the most recent outcomes, at
// most maxIndexed in all, and says which were dropped.
func keepNewest(recs []Record) (kept, dropped []string) {
	open := func(r Record) bool { return r.State == StatePending || r.State == StateExecuting }
	sorted := append([]Record(nil), recs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if open(sorted[i]) != open(sorted[j]) {
			return open(sorted[i])
		}
		return sorted[i].CreatedAt.After(sorted[j].CreatedAt)
	})
	for i, r := range sorted {
		if i < maxIndexed || open(r) {
			kept = append(kept, r.ID)
		} else {
			dropped = append(dropped, r.ID)
		}
	}
	return kept, dropped
}

func indexKey(userID string) string { return indexPrefix + userID }

// readIndex is the ids the person's index names, and its raw value for a
// compare-and-set.
func (s *Store) readIndex(userID string) ([]string, []byte, error) {
	raw, err := s.KV.Get(indexKey(userID))
	if err != nil {
		return nil, nil, err
	}
	return indexIDs(raw), raw, nil
}

// indexIDs is the ids a stored index names.
func indexIDs(raw []byte) []string {
	var ids []string
	if len(raw) > 0 && json.Unmarshal(raw, &ids) != nil {
		ids = nil // a corrupt index starts again; its records expire by themselves
	}
	return ids
}

// records loads the records ids names, skipping those that expired; with
// plans false, without their plans (what counting and ordering need, while
// a plan may hold megabytes of written files).
func (s *Store) records(userID string, ids []string, plans bool) ([]Record, error) {
	out := make([]Record, 0, len(ids))
	for _, id := range ids {
		var rec Record
		var err error
		if plans {
			rec, err = s.Load(userID, id)
		} else {
			rec, err = s.loadHead(userID, id)
		}
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// loadHead is Load without the plan.
func (s *Store) loadHead(userID, id string) (Record, error) {
	raw, err := s.KV.Get(key(userID, id))
	if err != nil {
		return Record{}, err
	}
	if raw == nil {
		return Record{}, ErrNotFound
	}
	var head struct {
		Record
		Plan skipped `json:"plan"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return Record{}, fmt.Errorf("read the pending post: %w", err)
	}
	if head.UserID != userID || head.ID != id {
		return Record{}, ErrNotFound
	}
	return head.Record, nil
}

// skipped decodes nothing: the decoder passes over the value unkept.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// indexed is the person's live records (with their plans or without).
// Ids whose records expired are dropped from the index on the way (once; a
// concurrent change wins).
func (s *Store) indexed(userID string, plans bool) ([]Record, error) {
	ids, raw, err := s.readIndex(userID)
	if err != nil {
		return nil, err
	}
	live, err := s.records(userID, ids, plans)
	if err != nil || len(live) == len(ids) {
		return live, err
	}
	// Dropping the expired ids is tidying, not reading: if it fails, or
	// another node changed the index meanwhile, the next reader drops them.
	if len(live) == 0 {
		_, _ = s.KV.CompareAndSet(indexKey(userID), raw, nil, 0)
	} else if next, merr := json.Marshal(idsOf(live)); merr == nil {
		_, _ = s.KV.CompareAndSet(indexKey(userID), raw, next, indexLifetime)
	}
	return live, nil
}

func idsOf(recs []Record) []string {
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	return ids
}

// updateIndex applies change to the person's live records atomically
// against other nodes; change returns the ids to keep and those dropped.
// It returns the dropped ids of the change that was stored.
func (s *Store) updateIndex(userID string, change func(live []Record) (kept, dropped []string, err error)) ([]string, error) {
	var dropped []string
	err := kvstore.Update(s.KV, indexKey(userID), func(raw []byte) (kvstore.Change, error) {
		live, err := s.records(userID, indexIDs(raw), false)
		if err != nil {
			return kvstore.Change{}, err
		}
		kept, d, err := change(live)
		if err != nil {
			return kvstore.Change{}, err
		}
		next, err := json.Marshal(kept)
		dropped = d
		return kvstore.Change{Value: next, TTL: indexLifetime}, err
	})
	if errors.Is(err, kvstore.ErrContended) {
		return nil, fmt.Errorf("the list of the person's pending writes: %w", err)
	}
	return dropped, err
}
