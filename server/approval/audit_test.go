package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit/audittest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
)

// recorded keeps what was recorded, as the audit trail would get it.
type recorded struct{ audittest.Trail }

func (r *recorded) outcomes() string {
	var out []string
	for _, e := range r.All() {
		out = append(out, e.Outcome)
	}
	return strings.Join(out, ",")
}

func auditedStore() (*Store, *recorded) {
	rec := &recorded{}
	return &Store{KV: newMemKV(), Now: time.Now, Audit: rec}, rec
}

var claude = Origin{Tool: "create_post", ClientName: "claude-code", ClientVersion: "2.1.3"}

func channelPlan() posting.Plan {
	p := plan()
	p.Message = "the zebra-word is secret"
	p.Dest = posting.Destination{ChannelID: strings.Repeat("c", 26), RootID: strings.Repeat("r", 26), Label: "~town-square"}
	return p
}

func TestEveryStepOfAWriteIsRecordedWithItsClientAndIdsOnly(t *testing.T) {
	cases := []struct {
		name string
		act  func(s *Store, id string)
		want string
	}{
		{"declined", func(s *Store, id string) { _, _ = s.Decline("alice", id) }, "asked,declined"},
		{"withdrawn", func(s *Store, id string) { _, _ = s.Withdraw("alice", id) }, "asked,withdrawn"},
		{"accepted and done", func(s *Store, id string) {
			_, _ = s.Accept(context.Background(), mattermost.NewGateway(nil, nil).As("alice"), id, func(context.Context, *mattermost.Caller, posting.Plan) (Executed, error) {
				return Executed{PostID: strings.Repeat("p", 26)}, nil
			})
		}, "asked,accepted,done"},
		{"accepted and failed", func(s *Store, id string) {
			_, _ = s.Accept(context.Background(), mattermost.NewGateway(nil, nil).As("alice"), id, func(context.Context, *mattermost.Caller, posting.Plan) (Executed, error) {
				return Executed{}, fmt.Errorf("the channel zebra-word is archived")
			})
		}, "asked,accepted,failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, r := auditedStore()
			rec, err := s.CreateFor("alice", "Post", channelPlan(), nil, claude)
			if err != nil {
				t.Fatal(err)
			}
			c.act(s, rec.ID)
			if got := r.outcomes(); got != c.want {
				t.Fatalf("recorded %s, want %s", got, c.want)
			}
			for _, e := range r.All() {
				raw, _ := json.Marshal(e)
				if strings.Contains(string(raw), "zebra") || strings.Contains(string(raw), "a.txt") || strings.Contains(string(raw), "secret") {
					t.Fatalf("an entry holds the message or a file's name: %s", raw)
				}
				if e.Kind != audit.KindWrite || e.UserID != "alice" || e.Tool != "create_post" || e.ClientName != "claude-code" || e.ClientVersion != "2.1.3" ||
					e.Targets["write_id"] != rec.ID || e.Targets["channel_id"] != strings.Repeat("c", 26) || e.Targets["root_id"] != strings.Repeat("r", 26) {
					t.Fatalf("entry %s", raw)
				}
			}
		})
	}
}

func TestAWriteNobodyAnsweredIsRecordedExpiredOnceByTheJob(t *testing.T) {
	s, r := auditedStore()
	a := &Approvals{store: s}
	rec, err := s.CreateFor("alice", "Post", channelPlan(), nil, claude)
	if err != nil {
		t.Fatal(err)
	}
	answered, err := s.CreateFor("alice", "Post", channelPlan(), nil, claude)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decline("alice", answered.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := a.ExpireWrites(time.Now()); err != nil || n != 0 {
		t.Fatalf("%d expired before their time (%v)", n, err)
	}
	// The KV store drops the pending record when its time is up.
	if err := s.KV.Delete(key("alice", rec.ID)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := a.ExpireWrites(time.Now().Add(PendingLifetime + time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.outcomes(); got != "asked,asked,declined,expired" {
		t.Fatalf("recorded %s", got)
	}
	last := r.All()[len(r.All())-1]
	if last.ClientName != "claude-code" || last.Tool != "create_post" || last.Targets["write_id"] != rec.ID {
		t.Fatalf("the expiry names %+v", last)
	}
}

func TestARecordOfAnOlderVersionStillAnswersAndIsRecorded(t *testing.T) {
	s, r := auditedStore()
	old := fmt.Sprintf(`{"id":"%s","user_id":"alice","state":"pending","title":"Post","created_at":%q,"plan":{"caller_id":"alice","message":"hi"}}`,
		strings.Repeat("a", 32), time.Now().Format(time.RFC3339Nano))
	if err := s.KV.Set(key("alice", strings.Repeat("a", 32)), []byte(old), PendingLifetime); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decline("alice", strings.Repeat("a", 32)); err != nil {
		t.Fatal(err)
	}
	if got := r.outcomes(); got != "declined" || r.All()[0].Targets["write_id"] != strings.Repeat("a", 32) {
		t.Fatalf("recorded %s %+v", got, r.All())
	}
}

func TestAShardOfOpenWritesAtItsBoundFitsInOneKVValue(t *testing.T) {
	targets := writeTargets(posting.Plan{Action: ActionAddMembers, Dest: posting.Destination{ChannelID: strings.Repeat("c", 26), RootID: strings.Repeat("r", 26),
		UserIDs: []string{strings.Repeat("u", 26), strings.Repeat("v", 26), strings.Repeat("w", 26), strings.Repeat("x", 26), strings.Repeat("y", 26), strings.Repeat("z", 26), strings.Repeat("1", 26)}},
		PostID: strings.Repeat("p", 26), Payload: ChannelMembers{Channel: &posting.ChannelSpec{ID: strings.Repeat("c", 26), TeamID: strings.Repeat("t", 26)},
			Members: []posting.Person{{ID: strings.Repeat("m", 26)}, {ID: strings.Repeat("n", 26)}}}})
	open := make([]openWrite, maxOpenWrites)
	for i := range open {
		open[i] = openWrite{UserID: strings.Repeat("a", 26), ID: strings.Repeat("f", 32), Expires: time.Now(), Tool: "create_channel_with_members",
			ClientName: strings.Repeat("é", 64), ClientVersion: strings.Repeat("9", 64), Targets: targets}
	}
	raw, err := json.Marshal(open)
	if err != nil || len(raw) > kvstore.MaxValueBytes {
		t.Fatalf("%d bytes at the bound, more than a KV value (%v)", len(raw), err)
	}
}
