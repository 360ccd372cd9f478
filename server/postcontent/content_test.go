package postcontent

import (
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
)

func postWith(typ, msg string, props map[string]any) *model.Post {
	p := &model.Post{Id: "p1", Type: typ, Message: msg}
	for k, v := range props {
		p.AddProp(k, v)
	}
	return p
}

func withCards(p *model.Post, cards ...*model.SlackAttachment) *model.Post {
	model.ParseSlackAttachment(p, cards)
	return p
}

func joined(c Content) string { return strings.Join(c.Lines(), "\n") }

func TestAFullAttachmentReadsAsItsPartsWithItsButtonsAsThingsOnlyAPersonCanPress(t *testing.T) {
	p := withCards(postWith("", "", nil), &model.SlackAttachment{
		Pretext: "Build report", AuthorName: "Jenkins", AuthorLink: "https://ci.example/",
		Title: "Pipeline #4711 failed", TitleLink: "https://ci.example/4711",
		Text:   "Step *integration-tests* failed after 12 min",
		Fields: []*model.SlackAttachmentField{{Title: "Branch", Value: "release-2.3"}, {Title: "Owner", Value: "@bob"}, {Title: "Minutes", Value: 12}},
		Footer: "CI", ImageURL: "https://ci.example/graph.png", ThumbURL: "https://ci.example/t.png",
		Actions: []*model.PostAction{{Type: "button", Name: "Retry"}, {Type: model.PostActionTypeSelect, Name: "Assign to"}},
	})
	c, found := Of(p, Facts{})
	if found.Any() || len(c.Cards) != 1 || c.System {
		t.Fatalf("content %+v found %+v", c, found)
	}
	got := joined(c)
	for _, want := range []string{
		"message attachment 1 of 1:", "  pretext: Build report", "  author: Jenkins <https://ci.example/>",
		"  title: Pipeline #4711 failed <https://ci.example/4711>", "  text: Step *integration-tests* failed after 12 min",
		"  fields:\n    Branch: release-2.3\n    Owner: @bob\n    Minutes: 12", "  footer: CI", "  image: https://ci.example/graph.png",
		"  thumbnail: https://ci.example/t.png", `only a person can press in Mattermost (no tool presses them): button "Retry", menu "Assign to"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lines lack %q:\n%s", want, got)
		}
	}
}

func TestTheAttributionOfThePluginsOwnPostIsOneLineAndNotAnAttachment(t *testing.T) {
	const note = "Written by an AI assistant for @alice (MCP)"
	p := withCards(postWith(model.PostTypeSlackAttachment, "hello", map[string]any{propFromMCP: true, propAttribution: note}),
		&model.SlackAttachment{Fallback: note, Footer: note})
	c, _ := Of(p, Facts{})
	if c.Attribution != note || len(c.Cards) != 0 || c.System {
		t.Fatalf("content %+v", c)
	}
	if got := c.Lines(); len(got) != 1 || !strings.Contains(got[0], note) {
		t.Fatalf("lines %q", got)
	}
}

func TestAnAttachmentThatOnlyLooksLikeTheAttributionIsShownAsAnAttachment(t *testing.T) {
	const note = "Written by an AI assistant for @alice (MCP)"
	for name, p := range map[string]*model.Post{
		"without the plugin's props": withCards(postWith("", "", nil), &model.SlackAttachment{Footer: note}),
		"with more than the footer": withCards(postWith("", "", map[string]any{propFromMCP: true, propAttribution: note}),
			&model.SlackAttachment{Footer: note, Title: "Click me"}),
	} {
		c, _ := Of(p, Facts{})
		if c.Attribution != "" || len(c.Cards) != 1 {
			t.Errorf("%s: content %+v", name, c)
		}
	}
}

func TestAWebhookPostReadsAsTheIntegrationNotAsTheOwnerSpeaking(t *testing.T) {
	p := postWith("", "deployed", map[string]any{model.PostPropsFromWebhook: "true", model.PostPropsOverrideUsername: "Jenkins"})
	c, _ := Of(p, Facts{Author: &model.User{Username: "alice"}, OverridesShown: true})
	if got := c.AuthorAs("@alice"); c.PostedBy != PostedByIntegration || c.ShownAs != "Jenkins" || !strings.HasPrefix(got, `integration "Jenkins"`) {
		t.Fatalf("content %+v reads as %q", c, got)
	}
	c, _ = Of(postWith("", "x", map[string]any{model.PostPropsFromWebhook: "true"}), Facts{OverridesShown: true})
	if got := c.AuthorAs("@alice"); !strings.HasPrefix(got, "integration (an incoming webhook of @alice)") {
		t.Fatalf("a webhook without a name reads as %q", got)
	}
	c, _ = Of(p, Facts{})
	if got := c.AuthorAs("@alice"); c.ShownAs != "" || !strings.HasPrefix(got, "integration (an incoming webhook of @alice)") {
		t.Fatalf("with overrides turned off since, the webhook reads as %q", got)
	}
}

func TestABotIsMarkedAsABot(t *testing.T) {
	for name, tc := range map[string]struct {
		p *model.Post
		u *model.User
	}{
		"bot account":   {postWith("", "x", nil), &model.User{Username: "ci", IsBot: true}},
		"from_bot prop": {postWith("", "x", map[string]any{model.PostPropsFromBot: "true"}), &model.User{Username: "ci"}},
	} {
		c, _ := Of(tc.p, Facts{Author: tc.u})
		if c.PostedBy != PostedByBot || c.AuthorAs("@ci") != "@ci (bot)" {
			t.Errorf("%s: %+v", name, c)
		}
	}
	if c, _ := Of(postWith("", "x", nil), Facts{Author: &model.User{Username: "alice"}}); c.PostedBy != "" {
		t.Errorf("a person is marked %q", c.PostedBy)
	}
}

func TestSystemMessagesReadInMattermostsWords(t *testing.T) {
	for _, tc := range []struct {
		typ   string
		props map[string]any
		want  string
	}{
		{model.PostTypeJoinChannel, map[string]any{"username": "alice"}, "@alice joined the channel."},
		{model.PostTypeLeaveChannel, map[string]any{"username": "alice"}, "@alice left the channel."},
		{model.PostTypeAddToChannel, map[string]any{"username": "bob", "addedUsername": "carol"}, "@carol added to the channel by @bob."},
		{model.PostTypeRemoveFromChannel, map[string]any{"removedUsername": "carol"}, "@carol removed from the channel."},
		{model.PostTypeHeaderChange, map[string]any{"username": "bob", "old_header": "a", "new_header": "b"}, "@bob updated the channel header from: a to: b"},
		{model.PostTypeHeaderChange, map[string]any{"username": "bob", "new_header": "b"}, "@bob updated the channel header to: b"},
		{model.PostTypeHeaderChange, map[string]any{"username": "bob", "old_header": "a"}, "@bob removed the channel header (was: a)"},
		{model.PostTypePurposeChange, map[string]any{"username": "bob", "old_purpose": "a", "new_purpose": "b"}, "@bob updated the channel purpose from: a to: b"},
		{model.PostTypeDisplaynameChange, map[string]any{"username": "bob", "old_displayname": "A", "new_displayname": "B"}, "@bob updated the channel display name from: A to: B"},
		{model.PostTypeChannelDeleted, map[string]any{"username": "bob"}, "@bob archived the channel."},
		{model.PostTypeJoinChannel, nil, "stored words"},
		{model.PostTypeConvertChannel, nil, "stored words"},
	} {
		p := postWith(tc.typ, "stored words", tc.props)
		got, ok := SystemMessage(p)
		if !ok || got != tc.want {
			t.Errorf("%s %v = %q, %v; want %q", tc.typ, tc.props, got, ok, tc.want)
		}
		if c, _ := Of(p, Facts{}); !c.System {
			t.Errorf("%s is not marked a system message", tc.typ)
		}
	}
	for _, typ := range []string{"", model.PostTypeSlackAttachment, model.PostTypeMe} {
		p := postWith(typ, "x", nil)
		if _, ok := SystemMessage(p); ok || IsSystem(p) {
			t.Errorf("type %q reads as a system message", typ)
		}
	}
}

func TestEveryPartIsBoundedAndSaysWhatWasCut(t *testing.T) {
	var fields []*model.SlackAttachmentField
	for range maxFields + 5 {
		fields = append(fields, &model.SlackAttachmentField{Title: "k", Value: "v"})
	}
	var actions []*model.PostAction
	for range maxActions + 2 {
		actions = append(actions, &model.PostAction{Type: "button", Name: "b"})
	}
	card := &model.SlackAttachment{Title: strings.Repeat("t", 2*maxLineRunes), Text: strings.Repeat("x", maxCardTextRunes+50), Fields: fields, Actions: actions}
	var cards []*model.SlackAttachment
	for range maxCards + 3 {
		cards = append(cards, card)
	}
	c, _ := Of(withCards(postWith("", "", nil), cards...), Facts{})
	if len(c.Cards) != maxCards || c.CardsLeft != 3 {
		t.Fatalf("%d cards shown, %d left", len(c.Cards), c.CardsLeft)
	}
	k := c.Cards[0]
	if len([]rune(k.Title)) != maxLineRunes || len([]rune(k.Text)) != maxCardTextRunes || len(k.Fields) != maxFields || len(k.Actions) != maxActions {
		t.Fatalf("card not bounded: title %d text %d fields %d actions %d", len(k.Title), len(k.Text), len(k.Fields), len(k.Actions))
	}
	got := joined(c)
	for _, want := range []string{"[text cut at 1000 characters]", "[5 more fields not shown]", "[2 more buttons or menus not shown]", "[3 more message attachments not shown"} {
		if !strings.Contains(got, want) {
			t.Errorf("lines lack %q", want)
		}
	}
}

func TestHiddenCharactersInAnAttachmentAreShownAndCounted(t *testing.T) {
	p := withCards(postWith("", "", nil), &model.SlackAttachment{Title: "Deploy\u200b", Text: "ok\U000E0041\U000E0042",
		Fields: []*model.SlackAttachmentField{{Title: "a\u202e", Value: "b"}}})
	c, found := Of(p, Facts{})
	if found.Chars != 4 || found.Tagged != 2 {
		t.Fatalf("found %+v", found)
	}
	if k := c.Cards[0]; k.Title != "Deploy⟨U+200B⟩" || !strings.Contains(k.Text, `⟨hidden text "AB"⟩`) || k.Fields[0].Title != "a⟨U+202E⟩" {
		t.Fatalf("card %+v", k)
	}
}

func TestAFallbackIsShownForAnAttachmentWithNothingElse(t *testing.T) {
	c, _ := Of(withCards(postWith("", "", nil), &model.SlackAttachment{Fallback: "Build failed", Color: "danger"}), Facts{})
	if len(c.Cards) != 1 || c.Cards[0].Text != "Build failed" {
		t.Fatalf("%+v", c.Cards)
	}
}

func TestPriorityAndAcknowledgementsReadWithWhoAcknowledgedBounded(t *testing.T) {
	urgent, yes := "urgent", true
	var acks []Ack
	for i := range maxAckNames + 2 {
		acks = append(acks, Ack{Username: "u" + string(rune('a'+i)), At: int64(i + 1)})
	}
	acks = append(acks, Ack{At: 99}) // someone the reader may not see
	c, _ := Of(postWith("", "x", nil), Facts{Priority: &model.PostPriority{Priority: &urgent, RequestedAck: &yes}, Acks: acks})
	pr := c.Priority
	if pr == nil || pr.Level != "urgent" || !pr.AckRequested || len(pr.AckedBy) != maxAckNames || pr.AckedOthers != 3 {
		t.Fatalf("priority %+v", pr)
	}
	if got := joined(c); !strings.Contains(got, "[priority urgent; acknowledgement requested; acknowledged by @ua, @ub") || !strings.Contains(got, "and 3 others]") {
		t.Fatalf("line %q", got)
	}
	empty := ""
	if c, _ := Of(postWith("", "x", nil), Facts{Priority: &model.PostPriority{Priority: &empty}}); c.Priority != nil {
		t.Fatalf("a standard post reads with a priority: %+v", c.Priority)
	}
}

func TestALinkPreviewReadsWithItsTitleSiteAndDescription(t *testing.T) {
	c, _ := Of(postWith("", "see https://example.com/a", nil), Facts{Preview: &Preview{URL: "https://example.com/a", Title: "Release notes", Site: "Example", Description: strings.Repeat("d", maxPreviewRunes+10)}})
	if c.Preview == nil || len(c.Preview.Description) != maxPreviewRunes {
		t.Fatalf("preview %+v", c.Preview)
	}
	if got := joined(c); !strings.HasPrefix(got, `link preview: https://example.com/a (Example) "Release notes"`) {
		t.Fatalf("lines %q", got)
	}
}

func TestACardCarriesItsBarColourAsTheWebappDrawsItAndWhichFieldsAreShort(t *testing.T) {
	for _, tc := range []struct{ color, want string }{
		{"good", "#00c100"}, {"Warning", "#dede01"}, {"danger", "#e40303"}, {"#FF8800", "#ff8800"}, {"#abc", "#abc"},
		{"", ""}, {"red", ""}, {"#ff8800;background:url(x)", ""}, {"#12345", ""},
	} {
		p := withCards(postWith("", "", nil), &model.SlackAttachment{Color: tc.color, Title: "t",
			Fields: []*model.SlackAttachmentField{{Title: "Env", Value: "prod", Short: true}, {Title: "Log", Value: "long"}}})
		c, _ := Of(p, Facts{})
		if len(c.Cards) != 1 || c.Cards[0].Color != tc.want {
			t.Errorf("colour %q reads as %+v, want %q", tc.color, c.Cards, tc.want)
			continue
		}
		if f := c.Cards[0].Fields; len(f) != 2 || !f[0].Short || f[1].Short {
			t.Errorf("the fields read as %+v, want the first short and the second not", f)
		}
	}
}
