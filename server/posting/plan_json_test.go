package posting

import (
	"encoding/json"
	"testing"
)

type reaction struct {
	Emoji string `json:"emoji,omitempty"`
}

func TestAPlanKeepsItsPayloadBesideItsOwnFieldsInOneObject(t *testing.T) {
	base := Plan{CallerID: "u1", Action: "react", PostID: "p1"}
	const head = `{"caller_id":"u1","action":"react","dest":{"label":""},"message":"","files":null,"attribution":"","post_id":"p1"`
	withPayload := func(payload any) Plan {
		p := base
		p.Payload = payload
		return p
	}
	cases := []struct {
		name string
		plan Plan
		want string
	}{
		{"no payload", base, head + `}`},
		{"a payload's fields", withPayload(reaction{Emoji: "tada"}), head + `,"emoji":"tada"}`},
		{"a payload with nothing to keep", withPayload(reaction{}), head + `}`},
		{"a payload of no fields", withPayload(struct{}{}), head + `}`},
	}
	for _, c := range cases {
		got, err := json.Marshal(c.plan)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %s %v, want %s", c.name, got, err, c.want)
		}
	}
	if _, err := json.Marshal(withPayload("tada")); err == nil {
		t.Error("a payload that is no JSON object was written into the plan")
	}
}

func TestAStoredPlanWrittenAgainKeepsThePayloadItWasReadWith(t *testing.T) {
	stored := `{"caller_id":"u1","action":"pin","dest":{"label":""},"message":"","files":null,"attribution":"","post_id":"p1","target":{"author_id":"u2","author":"bob","edit_at":0,"replies":1}}`
	var p Plan
	if err := json.Unmarshal([]byte(stored), &p); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(p)
	if err != nil || string(again) != stored {
		t.Fatalf("written again as %s %v", again, err)
	}
	var target struct {
		Target struct{ Author string } `json:"target"`
	}
	if err := p.DecodePayload(&target); err != nil || target.Target.Author != "bob" {
		t.Fatalf("the payload reads %+v %v", target, err)
	}
	// A payload set since it was read is the one written.
	p.Payload = reaction{Emoji: "tada"}
	if again, err := json.Marshal(p); err != nil || string(again) != stored[:len(stored)-len(`"target":{"author_id":"u2","author":"bob","edit_at":0,"replies":1}}`)]+`"emoji":"tada"}` {
		t.Fatalf("written with a new payload as %s %v", again, err)
	}
}
