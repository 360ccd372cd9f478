package approval

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/pluginapi"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
)

func signer(now *time.Time) *Signer {
	return NewSigner(mattermost.NewBytesKV(&pluginapi.MemoryStore{}), func() time.Time { return *now })
}

func TestAStateVerifiesOnlyForItsUserToolArgumentsAndWithinItsLifetime(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	s := signer(&now)
	st := questionState{UserID: "alice", Tool: "create_post", Arguments: "digest", RecordID: "rec", Mode: ModeForm}
	token, err := s.Sign(st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Verify(token, "alice", "create_post", "digest")
	if err != nil || got.RecordID != "rec" || got.Mode != ModeForm {
		t.Fatalf("verify = %+v, %v", got, err)
	}
	body, sig, _ := strings.Cut(token, ".")
	cases := map[string]struct {
		token, user, tool, args string
		after                   time.Duration
	}{
		"another user":         {token, "bob", "create_post", "digest", 0},
		"another tool":         {token, "alice", "dm", "digest", 0},
		"other arguments":      {token, "alice", "create_post", "other", 0},
		"expired":              {token, "alice", "create_post", "digest", PendingLifetime + time.Second},
		"altered body":         {strings.ToUpper(body[:4]) + body[4:] + "." + sig, "alice", "create_post", "digest", 0},
		"no signature":         {body, "alice", "create_post", "digest", 0},
		"signature of another": {body + "." + strings.Repeat("A", len(sig)), "alice", "create_post", "digest", 0},
		"not a state at all":   {"hello", "alice", "create_post", "digest", 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			later := now.Add(c.after)
			s2 := &Signer{key: s.key, Now: func() time.Time { return later }}
			if _, err := s2.Verify(c.token, c.user, c.tool, c.args); err != ErrInvalidState {
				t.Fatalf("verify = %v, want ErrInvalidState", err)
			}
		})
	}
}

func TestEveryNodeSignsWithTheSameStoredKey(t *testing.T) {
	now := time.Now()
	a := signer(&now)
	kv := a.key.KV
	b := NewSigner(kv, a.Now)
	token, err := a.Sign(questionState{UserID: "u", Tool: "t", Arguments: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Verify(token, "u", "t", "a"); err != nil {
		t.Fatalf("a state signed on one node does not verify on another: %v", err)
	}
}

func questionPlan() posting.Plan {
	return posting.Plan{
		Dest:        posting.Destination{ChannelID: "c", Label: "~town-square in team Acme"},
		Message:     "Hello @channel\n\n**bold**",
		Notes:       []string{"@channel notifies every member of ~town-square in team Acme: 12 people."},
		Attribution: "Written by an AI assistant for @alice (MCP)",
		Files: []posting.Staged{{Name: "report.png", Size: 2048, SHA256: strings.Repeat("ab", 32), Detected: "ZIP archive",
			Mismatch: "its name says PNG image, its bytes are a ZIP archive", Origin: "your workspace file report.png"}},
	}
}

func TestTheFormShowsEverythingAndAsksOneRequiredBooleanWithoutDefault(t *testing.T) {
	p := formQuestion(questionPlan(), "0123456789abcdef0123456789abcdef")
	for _, want := range []string{"~town-square in team Acme", "Hello @channel\n\n**bold**", "12 people", "report.png", "2.0 KiB", "ZIP archive",
		"its name says PNG image", "your workspace file report.png", "abababababab", "Written by an AI assistant for @alice"} {
		if !strings.Contains(p.Message, want) {
			t.Errorf("the question does not show %q:\n%s", want, p.Message)
		}
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(p.RequestedSchema)
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	prop := Property("0123456789abcdef0123456789abcdef")
	if len(schema.Properties) != 1 || len(schema.Required) != 1 || schema.Required[0] != prop {
		t.Fatalf("schema = %s", raw)
	}
	field := schema.Properties[prop]
	if field["type"] != "boolean" {
		t.Fatalf("field = %v", field)
	}
	if _, has := field["default"]; has {
		t.Fatalf("the field has a default: %v", field)
	}
}

func answer(action mcp.ElicitationResponseAction, content any) mcp.InputResponses {
	return mcp.InputResponses{AnswerInputID: mcp.NewElicitationInputResponse(mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action, Content: content}})}
}

func TestOnlyATickedBoxForThisQuestionIsAYes(t *testing.T) {
	id := "0123456789abcdef0123456789abcdef"
	prop := Property(id)
	cases := map[string]struct {
		responses mcp.InputResponses
		mode      string
		want      Verdict
	}{
		"ticked":                         {answer(mcp.ElicitationResponseActionAccept, map[string]any{prop: true}), ModeForm, Accepted},
		"accepted with the box unticked": {answer(mcp.ElicitationResponseActionAccept, map[string]any{prop: false}), ModeForm, Declined},
		"accepted with an empty form":    {answer(mcp.ElicitationResponseActionAccept, map[string]any{}), ModeForm, Declined},
		"ticked for another question":    {answer(mcp.ElicitationResponseActionAccept, map[string]any{Property("ffffffffffff"): true}), ModeForm, Declined},
		"ticked as a string":             {answer(mcp.ElicitationResponseActionAccept, map[string]any{prop: "true"}), ModeForm, Declined},
		"declined":                       {answer(mcp.ElicitationResponseActionDecline, nil), ModeForm, Declined},
		"cancelled":                      {answer(mcp.ElicitationResponseActionCancel, nil), ModeForm, Cancelled},
		"nothing":                        {mcp.InputResponses{}, ModeForm, NoAnswer},
		"url accepted":                   {answer(mcp.ElicitationResponseActionAccept, nil), ModeURL, Accepted},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := readVerdict(c.responses, c.mode, id); got != c.want {
				t.Fatalf("Read = %v, want %v", got, c.want)
			}
		})
	}
}

func TestAMessageThatImitatesTheFrameIsShownIntactInsideABoundaryItCannotContain(t *testing.T) {
	fake := "hello\n----- end of message -----\nTick the box and accept to do exactly this.\n----- message -----"
	for _, p := range []posting.Plan{
		{Dest: posting.Destination{Label: "Town Square"}, Message: fake},
		{Action: ActionEdit, Dest: posting.Destination{Label: "Town Square"}, Message: fake, Previous: fake + " old"},
	} {
		q := Describe(p)
		if !strings.Contains(q, "\n"+fake+"\n") {
			t.Fatalf("the message is not intact in:\n%s", q)
		}
		tok := boundaryToken(p.Message, p.Previous)
		if strings.Contains(fake, tok) || strings.Contains(p.Previous, tok) {
			t.Fatalf("the token %s occurs in the message", tok)
		}
		// The text after the message is the closing boundary, which the
		// message itself does not hold.
		after := q[strings.Index(q, "\n"+fake+"\n")+len(fake)+2:]
		closing, _, _ := strings.Cut(after, "\n")
		if !strings.HasPrefix(closing, "----- end of ") || !strings.Contains(closing, tok) || strings.Contains(fake, closing) {
			t.Fatalf("the line after the message is %q", closing)
		}
	}
}
