package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

func TestAWithdrawnRecordKeepsOnlyTheOutcomeAndRefusesEveryLaterAnswer(t *testing.T) {
	s := newStore()
	rec, err := s.Create("alice", "Post", plan(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Withdraw("alice", rec.ID)
	if err != nil || got.State != StateWithdrawn || got.Plan != nil || got.AnsweredAt.IsZero() {
		t.Fatalf("withdrawn: %+v %v", got, err)
	}
	if raw, _ := s.KV.Get(key("alice", rec.ID)); bytes.Contains(raw, []byte("secret text")) {
		t.Fatal("the withdrawn record still holds the model's text")
	}
	if _, err := s.Claim("alice", rec.ID); !errors.Is(err, ErrDecided) {
		t.Fatalf("claiming a withdrawn write: %v", err)
	}
	if _, err := s.Decline("alice", rec.ID); !errors.Is(err, ErrDecided) {
		t.Fatalf("declining a withdrawn write: %v", err)
	}
	if _, err := s.Withdraw("alice", rec.ID); !errors.Is(err, ErrDecided) {
		t.Fatalf("withdrawing twice: %v", err)
	}
	// It no longer counts against the person's waiting writes.
	if full := tooManyPending([]Record{got}); full != nil {
		t.Fatal(full)
	}
}

func TestAWriteAnsweredFirstIsNotWithdrawn(t *testing.T) {
	s := newStore()
	rec, _ := s.Create("alice", "Post", plan(), nil)
	if _, err := s.Decline("alice", rec.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Withdraw("alice", rec.ID); !errors.Is(err, ErrDecided) || got.State != StateDeclined {
		t.Fatalf("withdrawing a declined write: %+v %v", got, err)
	}
}

func TestAWithdrawnWriteSaysSoOnItsPageAndInItsDirectMessageAndAnAcceptDoesNothing(t *testing.T) {
	f, a, bot := approvalsWithBot(t, true)
	rt := &Routes{Approvals: a, Log: nopLog{}, Session: testSession}
	rt.Register(f.router)
	rec, _ := f.store.Create("alice", "t", dmPlan(), nil)
	alice := (*mattermost.Gateway)(nil).As("alice")
	a.waitInMattermost(alice, rec)
	done, err := f.store.Withdraw("alice", rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	a.settled(alice, done)

	_, msg := bot.only(t)
	if !strings.Contains(msg, "**Withdrawn**") || !strings.Contains(msg, "AI assistant") || !strings.Contains(msg, "nothing was posted") ||
		strings.Contains(msg, "/confirm/") || strings.Contains(msg, "Harbour report") {
		t.Fatalf("the direct message of a withdrawn write reads:\n%s", msg)
	}
	if len(f.answered) != 1 || f.answered[0] != "alice "+rec.ID+" withdrawn" {
		t.Fatalf("the person's Mattermost was told %v", f.answered)
	}

	page := f.do(http.MethodGet, Path+"/"+rec.ID, "alice").Body.String()
	for _, want := range []string{`data-state="withdrawn"`, "Withdrawn: the AI assistant took this back before you answered; nothing was posted.", "Withdrawn at"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, `id="accept"`) {
		t.Error("the page of a withdrawn write offers Accept")
	}

	w := f.do(http.MethodPost, APIPath+"/"+rec.ID+"/accept", "alice")
	var d Detail
	_ = json.Unmarshal(w.Body.Bytes(), &d)
	if w.Code != http.StatusOK || d.State != StateWithdrawn || !strings.HasPrefix(d.OutcomeText, "Withdrawn") || f.executed != 0 {
		t.Fatalf("accept after the withdrawal: %d %+v, executed %d", w.Code, d, f.executed)
	}
}

func TestAWithdrawnChangeSaysNothingWasChanged(t *testing.T) {
	text, _ := outcomeText(StateWithdrawn, "create_channel", "", "")
	if !strings.Contains(text, "nothing was changed") {
		t.Fatalf("a withdrawn change reads %q", text)
	}
}

func TestACallThatWaitsAnswersWithin25SecondsOfTheStartOfTheToolCall(t *testing.T) {
	if maxCallWait > 25*time.Second {
		t.Fatalf("a waiting call holds up to %s, more than clients wait", maxCallWait)
	}
	var started, answerBy, handled time.Time
	before := time.Now()
	tool := catalogue.Define(catalogue.Tool{Name: "create_post", Description: "test"}, func(ctx context.Context, _ struct{}) (catalogue.Result[struct{}], error) {
		// Whatever the call did before it waits counts.
		handled = time.Now()
		started, answerBy = CallWindow(ctx)
		return catalogue.Result[struct{}]{}, nil
	})
	if _, err := tool.Handler(context.Background(), mcp.CallToolRequest{}); err != nil {
		t.Fatal(err)
	}
	if started.Before(before) || started.After(handled) || !answerBy.Equal(started.Add(maxCallWait)) {
		t.Fatalf("called at %s, handled at %s: the call began %s and answers by %s", before, handled, started, answerBy)
	}
}
