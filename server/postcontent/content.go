// Package postcontent turns what a Mattermost post holds besides its
// message into parts the model reads as Mattermost shows them: message
// attachments (the cards integrations post) with their buttons named as
// things only a person can press, who posted (a bot, an integration under
// its display name), system messages in Mattermost's words, the stored link
// preview and the post's priority.
//
// It is pure: a post and the facts looked up for it in, parts out. Every
// part is bounded (limits.go) and cleaned like the message: characters
// Mattermost does not display are made visible (package hidden), and the
// Found it returns counts them for the post's note.
package postcontent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/hidden"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// The props this plugin sets on the posts it makes (package posting writes
// them): the attribution rides in an attachment's footer, so every client
// shows it under the post.
const (
	propFromMCP     = "from_mcp"
	propAttribution = "mcp_attribution"
)

// Who posted, beyond the account.
const (
	PostedByBot         = "bot"
	PostedByIntegration = "integration"
)

// Facts are what the post itself does not say, looked up for the reader.
type Facts struct {
	// Author is the posting account as Mattermost shows it to the reader;
	// nil when the reader may not see it.
	Author *model.User
	// Priority is the post's stored priority; nil when it has none or the
	// server has message priority turned off.
	Priority *model.PostPriority
	// Acks are the acknowledgements of the post, oldest first.
	Acks []Ack
	// Preview is the link preview Mattermost stored for the post's first
	// link; nil when it has none or link previews are off.
	Preview *Preview
	// OverridesShown is ServiceSettings.EnablePostUsernameOverride: the
	// webapp shows the name a webhook posted under only while it is on.
	OverridesShown bool
}

// Ack is one person's acknowledgement: Username is empty when the reader
// may not see who it was.
type Ack struct {
	Username string
	At       int64
}

// Content is what a post holds besides its message, as the model reads it.
type Content struct {
	// PostedBy is "bot" or "integration" (an incoming webhook), empty for
	// a person.
	PostedBy string `json:"posted_by,omitempty"`
	// ShownAs is the display name an integration posted under, the name
	// Mattermost shows in place of the webhook owner's.
	ShownAs string `json:"shown_as,omitempty"`
	// System is a message Mattermost wrote (someone joined, the header
	// changed); the post's message is then in Mattermost's words.
	System bool `json:"system_message,omitempty"`
	// Attribution is the note this plugin puts under the posts it makes.
	Attribution string `json:"mcp_attribution,omitempty"`
	// Cards are the message attachments, in order.
	Cards []Card `json:"message_attachments,omitempty"`
	// CardsLeft is how many attachments past maxCards are not shown.
	CardsLeft int       `json:"message_attachments_not_shown,omitempty"`
	Preview   *Preview  `json:"link_preview,omitempty"`
	Priority  *Priority `json:"priority,omitempty"`
}

// Card is one message attachment.
type Card struct {
	// Color is the bar beside the card, as #rrggbb (Mattermost's good,
	// warning and danger as theirs); empty for its default.
	Color      string   `json:"color,omitempty"`
	Pretext    string   `json:"pretext,omitempty"`
	Author     string   `json:"author,omitempty"`
	AuthorLink string   `json:"author_link,omitempty"`
	Title      string   `json:"title,omitempty"`
	TitleLink  string   `json:"title_link,omitempty"`
	Text       string   `json:"text,omitempty"`
	Fields     []Field  `json:"fields,omitempty"`
	Footer     string   `json:"footer,omitempty"`
	ImageURL   string   `json:"image_url,omitempty"`
	ThumbURL   string   `json:"thumb_url,omitempty"`
	Actions    []Action `json:"actions,omitempty"`
	// Cut says what was left out of this card, one sentence each.
	Cut []string `json:"cut,omitempty"`
}

// Field is one "title: value" line of a card.
type Field struct {
	Title string `json:"title"`
	Value string `json:"value"`
	// Short fields sit side by side, two to a row, as Mattermost lays them.
	Short bool `json:"short,omitempty"`
}

// Action is a button or a menu on a card: only a person can press it, in
// Mattermost.
type Action struct {
	Type  string `json:"type"` // "button" or "menu"
	Label string `json:"label"`
}

// Preview is the link preview Mattermost shows under a post.
type Preview struct {
	URL         string `json:"url"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Site        string `json:"site,omitempty"`
	Image       string `json:"image,omitempty"`
}

// Priority is the post's message priority and who acknowledged it.
type Priority struct {
	// Level is "important" or "urgent"; empty for a standard post that
	// still requests an acknowledgement.
	Level        string `json:"level,omitempty"`
	AckRequested bool   `json:"acknowledgement_requested,omitempty"`
	Persistent   bool   `json:"persistent_notifications,omitempty"`
	// AckedBy are the people who acknowledged, as @username, at most
	// maxAckNames; AckedOthers counts the rest (and those the reader may
	// not see).
	AckedBy     []string `json:"acknowledged_by,omitempty"`
	AckedOthers int      `json:"acknowledged_by_others,omitempty"`
}

// reader reveals what each part hides and adds up what it found.
type reader struct{ found hidden.Found }

// line is a one-line part, revealed and cut at maxLineRunes.
func (r *reader) line(s string) string {
	s, _ = present.Cut(strings.TrimSpace(s), maxLineRunes)
	out, f := hidden.Line(s)
	r.found = r.found.Plus(f)
	return out
}

// text is a multi-line part cut at n runes (before revealing, so a marker
// is never cut in half), and whether it was cut.
func (r *reader) text(s string, n int) (string, bool) {
	s, was := present.Cut(strings.TrimSpace(s), n)
	out, f := hidden.Reveal(s)
	r.found = r.found.Plus(f)
	return out, was
}

// Of is what post p holds besides its message, and what it hid.
func Of(p *model.Post, f Facts) (Content, hidden.Found) {
	r := &reader{}
	c := Content{System: IsSystem(p)}
	c.PostedBy, c.ShownAs = r.poster(p, f)
	cards := p.Attachments()
	if a, ok := attribution(p, cards); ok {
		c.Attribution = r.line(a)
		cards = cards[1:]
	}
	for i, a := range cards {
		if a == nil {
			continue
		}
		if i == maxCards {
			c.CardsLeft = len(cards) - maxCards
			break
		}
		c.Cards = append(c.Cards, r.card(a))
	}
	if f.Preview != nil && f.Preview.URL != "" {
		pv := *f.Preview
		pv.URL, pv.Title, pv.Site, pv.Image = r.line(pv.URL), r.line(pv.Title), r.line(pv.Site), r.line(pv.Image)
		pv.Description, _ = r.text(pv.Description, maxPreviewRunes)
		c.Preview = &pv
	}
	c.Priority = priorityOf(f.Priority, f.Acks)
	return c, r.found
}

// IsSystem reports a message Mattermost itself wrote. A post carrying
// message attachments (type slack_attachment) is not one.
func IsSystem(p *model.Post) bool { return strings.HasPrefix(p.Type, model.PostSystemMessagePrefix) }

func (r *reader) poster(p *model.Post, f Facts) (by, as string) {
	if p.GetProp(model.PostPropsFromWebhook) == "true" {
		// The webapp shows the name the hook posted under in place of the
		// owner's while the server allows overrides.
		if name, ok := p.GetProp(model.PostPropsOverrideUsername).(string); ok && f.OverridesShown {
			as = r.line(name)
		}
		return PostedByIntegration, as
	}
	if (f.Author != nil && f.Author.IsBot) || p.GetProp(model.PostPropsFromBot) == "true" {
		return PostedByBot, ""
	}
	return "", ""
}

// attribution is the text of the attribution this plugin put on a post it
// made: its first attachment, holding nothing but that text.
func attribution(p *model.Post, cards []*model.SlackAttachment) (string, bool) {
	mine, _ := p.GetProp(propFromMCP).(bool)
	text, _ := p.GetProp(propAttribution).(string)
	if !mine || text == "" || len(cards) == 0 || cards[0] == nil {
		return "", false
	}
	a := *cards[0]
	if a.Footer != text {
		return "", false
	}
	a.Footer, a.Fallback, a.Id = "", "", 0
	if !a.Equals(&model.SlackAttachment{}) {
		return "", false
	}
	return text, true
}

func (r *reader) card(a *model.SlackAttachment) Card {
	var c Card
	var textCut, pretextCut bool
	c.Color = cardColor(a.Color)
	c.Pretext, pretextCut = r.text(a.Pretext, maxCardTextRunes)
	c.Author, c.AuthorLink = r.line(a.AuthorName), r.line(a.AuthorLink)
	c.Title, c.TitleLink = r.line(a.Title), r.line(a.TitleLink)
	c.Text, textCut = r.text(a.Text, maxCardTextRunes)
	c.Footer = r.line(a.Footer)
	c.ImageURL, c.ThumbURL = r.line(a.ImageURL), r.line(a.ThumbURL)
	fields := 0
	for _, f := range a.Fields {
		if f == nil {
			continue
		}
		fields++
		if len(c.Fields) < maxFields {
			c.Fields = append(c.Fields, Field{Title: r.line(f.Title), Value: r.line(fieldValue(f.Value)), Short: bool(f.Short)})
		}
	}
	actions := 0
	for _, act := range a.Actions {
		if act == nil {
			continue
		}
		actions++
		if len(c.Actions) < maxActions {
			typ := "button"
			if act.Type == model.PostActionTypeSelect {
				typ = "menu"
			}
			c.Actions = append(c.Actions, Action{Type: typ, Label: r.line(act.Name)})
		}
	}
	if c.Pretext == "" && c.Title == "" && c.Text == "" && len(c.Fields) == 0 && c.Author == "" {
		// Clients that cannot draw the card show its fallback; so does this.
		c.Text, textCut = r.text(a.Fallback, maxCardTextRunes)
	}
	if pretextCut {
		c.Cut = append(c.Cut, fmt.Sprintf("pretext cut at %d characters", maxCardTextRunes))
	}
	if textCut {
		c.Cut = append(c.Cut, fmt.Sprintf("text cut at %d characters", maxCardTextRunes))
	}
	if n := fields - len(c.Fields); n > 0 {
		c.Cut = append(c.Cut, fmt.Sprintf("%d more fields not shown", n))
	}
	if n := actions - len(c.Actions); n > 0 {
		c.Cut = append(c.Cut, fmt.Sprintf("%d more buttons or menus not shown", n))
	}
	return c
}

// The colours Mattermost's webapp draws its three named attachment colours
// in (good, warning, danger).
var namedColors = map[string]string{"good": "#00c100", "warning": "#dede01", "danger": "#e40303"}

// hexColor is a colour a card may name itself: #rgb or #rrggbb, nothing a
// style could read as more than a colour.
var hexColor = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3}){1,2}$`)

// cardColor is the bar colour of a card as the webapp draws it: a named
// colour as its hex, a hex as written, anything else as no colour.
func cardColor(c string) string {
	c = strings.TrimSpace(c)
	if named, ok := namedColors[strings.ToLower(c)]; ok {
		return named
	}
	if hexColor.MatchString(c) {
		return strings.ToLower(c)
	}
	return ""
}

// fieldValue is a field's value as the webapp renders it: text as it is,
// numbers and other JSON as written.
func fieldValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(raw)
	}
}

func priorityOf(p *model.PostPriority, acks []Ack) *Priority {
	var out Priority
	if p != nil {
		if p.Priority != nil {
			out.Level = *p.Priority
		}
		out.AckRequested = p.RequestedAck != nil && *p.RequestedAck
		out.Persistent = p.PersistentNotifications != nil && *p.PersistentNotifications
	}
	for _, a := range acks {
		if a.Username != "" && len(out.AckedBy) < maxAckNames {
			out.AckedBy = append(out.AckedBy, "@"+a.Username)
		} else {
			out.AckedOthers++
		}
	}
	if out.Level == "" && !out.AckRequested && !out.Persistent && len(out.AckedBy) == 0 && out.AckedOthers == 0 {
		return nil
	}
	return &out
}
