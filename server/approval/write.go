package approval

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Words are the sentences of a write that name no value of its own, the
// same for every write of its kind.
type Words struct {
	// Asks is what the assistant asks, in the plugin's own words alone, for
	// the bot's direct message: "An AI assistant asks to <Asks>." It names
	// no value anyone chose, which the message shows apart.
	Asks string
	// Lede is the sentence under the heading on the page and the modal;
	// Box the title of the client form's one box; Accept the accept button
	// of the page and the modal.
	Lede, Box, Accept string
	// ModalAccept is the modal's accept button where it differs from the
	// page's ("": the page's).
	ModalAccept string
	// Working is the accept button's label while the answer is under way
	// ("": Working…); AfterExpiry what becomes of the write unanswered
	// ("": nothing is changed).
	Working, AfterExpiry string
	// MessageHeading and MessageCaption head and caption the box of the
	// model's message on the page and the modal; "" for a write that shows
	// no message of its own.
	MessageHeading, MessageCaption string
	// PostCaption captions the post the change is about; "" for changes
	// about no post. ShowsMessage: that post is the plan's own message (a
	// scheduled post), not the one it changes (Previous).
	PostCaption  string
	ShowsMessage bool
	// NotesHeading heads the plan's notes ("": defaultNotesHeading).
	NotesHeading string
	// Done is what happened after a yes, Declined after a no; place is the
	// destination in the person's words ("" once the record keeps none).
	Done     func(place string) string
	Declined string
	// Failed, Underway and Withdrawn end the sentences of a failure, of an
	// accepted write being carried out and of one the assistant took back
	// ("": the wording of a change).
	Failed, Underway, Withdrawn string
	// Settled is the bot's message after a yes or a no, in the plugin's
	// words with the permalink it built (nil: the wording of a change); the
	// message shows the place apart.
	Settled func(state, permalink string) string
}

// defaultNotesHeading heads the notes of a write that names no heading of
// its own; every view takes it from here.
const defaultNotesHeading = "Who is notified"

// A Kind is one kind of confirmed write, whole, over its own payload P (the
// data only this kind keeps in a plan): how it reads to the person in
// every view (the client's question, the page, the webapp's modal, the
// bot's message, the tool's answer), how it is checked again when the
// person answers, and how it is carried out. Each kind is registered from
// its own file (write_*.go here, or beside its tool) with its action;
// nothing else in the package knows one kind from another.
type Kind[P any] struct {
	// Action is the write's kind as its plan and record keep it.
	Action string
	// Tools are the tools that ask for this write (a test holds every write
	// tool to exactly one kind).
	Tools []string
	Words
	// Heading is the write in the person's words: what and for whom, with
	// any value the model chose as a span of its own.
	Heading func(p posting.Plan, own P) posting.Line
	// Title is the write in one line for lists and notifications; nil: the
	// heading.
	Title func(p posting.Plan, own P) string
	// Question is the client's question in full; nil: the heading, the
	// lede, the facts, the post it is about and the notes.
	Question func(p posting.Plan, own P) string
	// LedeLine is the lede in spans when it names a value the model chose
	// (a reaction's emoji), which the page sets in bold; nil: Lede.
	LedeLine func(p posting.Plan, own P) posting.Line
	// Shown words the post the write is about on the page and the modal
	// where the client and the bot's message do not caption it (an edit, a
	// reaction); nil: The post, captioned PostCaption.
	Shown func(p posting.Plan, own P) ShownWords
	// Facts are the lines of what changes (nil: none).
	Facts func(p posting.Plan, own P) []posting.Fact
	// Told is what the model is told a carried-out write did (nil: Done and
	// the link).
	Told func(p posting.Plan, own P, permalink string) string
	// Recheck refuses a write that no longer reads as the person was shown
	// it (nil: nothing to check before carrying it out).
	Recheck func(a *Approvals, c *mattermost.Caller, p posting.Plan, own P) error
	// Carry carries out the accepted write as the person.
	Carry func(ctx context.Context, a *Approvals, c *mattermost.Caller, p posting.Plan, own P) (Executed, error)
}

// Nothing is the payload of a write whose plan's shared fields say it all
// (a post, an edit).
type Nothing struct{}

// Plan is base as a write of this kind with its payload: the one way a
// tool makes a plan, so a payload is always its action's.
func (k *Kind[P]) Plan(base posting.Plan, own P) posting.Plan {
	base.Action, base.Payload = k.Action, own
	return base
}

// Payload is the payload of a plan of this kind: the one it was made with,
// or the one its record was stored with. A record whose payload does not
// read has none, which every recheck refuses.
func (k *Kind[P]) Payload(p posting.Plan) P {
	if own, ok := p.Payload.(P); ok {
		return own
	}
	var own P
	if err := p.DecodePayload(&own); err != nil {
		var none P
		return none
	}
	return own
}

// writes are every confirmed write, by its action, each registered from
// its own file. The actions are what records in the KV store keep, so a
// record stored by an older version reads and answers the same.
var writes = map[string]write{}

// Register adds a kind to writes, from the file that defines it: here, or
// beside its tool in package tools. An action registered twice is a
// mistake no test run survives.
func Register[P any](k *Kind[P]) *Kind[P] {
	if _, dup := writes[k.Action]; dup {
		panic("approval: two writes of action " + k.Action)
	}
	writes[k.Action] = k.erase()
	return k
}

// write is a kind with its payload type forgotten: what the views, the
// store and the answer need of any write, each reading the payload from
// the plan it is given.
type write struct {
	Action string
	Tools  []string
	Words
	Heading, LedeLine func(p posting.Plan) posting.Line
	Title, Question   func(p posting.Plan) string
	Shown             func(p posting.Plan) ShownWords
	Facts             func(p posting.Plan) []posting.Fact
	Told              func(p posting.Plan, permalink string) string
	Payload           func(p posting.Plan) any
	// fromKept is the payload of a record that keeps no plan, from what it
	// kept of it (Record.Emoji); nil: the kind keeps nothing.
	fromKept func(kept string) any
	Recheck  func(a *Approvals, c *mattermost.Caller, p posting.Plan) error
	Carry    func(ctx context.Context, a *Approvals, c *mattermost.Caller, p posting.Plan) (Executed, error)
}

func (k *Kind[P]) erase() write {
	w := write{Action: k.Action, Tools: k.Tools, Words: k.Words,
		Heading: func(p posting.Plan) posting.Line { return k.Heading(p, k.Payload(p)) },
		Payload: func(p posting.Plan) any { return k.Payload(p) },
		Carry: func(ctx context.Context, a *Approvals, c *mattermost.Caller, p posting.Plan) (Executed, error) {
			return k.Carry(ctx, a, c, p, k.Payload(p))
		}}
	var none P
	if r, ok := any(none).(keeper); ok {
		w.fromKept = r.fromKept
	}
	if k.LedeLine != nil {
		w.LedeLine = func(p posting.Plan) posting.Line { return k.LedeLine(p, k.Payload(p)) }
	}
	if k.Title != nil {
		w.Title = func(p posting.Plan) string { return k.Title(p, k.Payload(p)) }
	}
	if k.Question != nil {
		w.Question = func(p posting.Plan) string { return k.Question(p, k.Payload(p)) }
	}
	if k.Shown != nil {
		w.Shown = func(p posting.Plan) ShownWords { return k.Shown(p, k.Payload(p)) }
	}
	if k.Facts != nil {
		w.Facts = func(p posting.Plan) []posting.Fact { return k.Facts(p, k.Payload(p)) }
	}
	if k.Told != nil {
		w.Told = func(p posting.Plan, permalink string) string { return k.Told(p, k.Payload(p), permalink) }
	}
	if k.Recheck != nil {
		w.Recheck = func(a *Approvals, c *mattermost.Caller, p posting.Plan) error {
			return k.Recheck(a, c, p, k.Payload(p))
		}
	}
	return w
}

// keeper is a payload one value of which the record keeps after its plan is
// dropped (in Record.Emoji: a reaction's emoji), so the outcome still names
// it; fromKept makes the payload again from that value.
type keeper interface {
	kept() string
	fromKept(kept string) any
}

// EmojiOf is the value a record keeps of a plan's payload (a reaction's
// emoji; "" for a write that keeps none), for the record and the tool's
// answer.
func EmojiOf(p posting.Plan) string {
	if k, ok := writeOf(p.Action).Payload(p).(keeper); ok {
		return k.kept()
	}
	return ""
}

// keptPayload is the payload of an answered record, which keeps no plan:
// what it kept of it, or none.
func keptPayload(rec Record) any {
	if w := writeOf(rec.Action); w.fromKept != nil && rec.Emoji != "" {
		return w.fromKept(rec.Emoji)
	}
	return nil
}

// WriteTools are the tools that ask for each action, for the catalogue's
// test that every write tool has exactly one.
func WriteTools() map[string][]string {
	out := make(map[string][]string, len(writes))
	for action, w := range writes {
		out[action] = w.Tools
	}
	return out
}

// writeOf is the write of an action; a kind this version does not know
// reads as an unknown change that nothing will carry out.
func writeOf(action string) write {
	if w, ok := writes[action]; ok {
		return w
	}
	return unknownWrite
}

var unknownWrite = write{
	Heading: func(posting.Plan) posting.Line { return say("A change this version does not know") },
	Payload: func(posting.Plan) any { return nil },
	Words: Words{
		Asks: "make a change this version does not know",
		Lede: "This confirmation is of a kind this version does not know; accepting it changes nothing.",
		Box:  "Go ahead", Accept: "Accept",
		Done:     func(string) string { return "Done." },
		Declined: "Declined: nothing was changed.",
	},
	Carry: func(context.Context, *Approvals, *mattermost.Caller, posting.Plan) (Executed, error) {
		return Executed{}, refusal.New("This confirmation is of a kind this version does not know; nothing was changed.", "")
	},
}

// ShownWords head and caption the post a write is about: Heading and
// Caption on the page, ModalHeading in the modal.
type ShownWords struct{ Heading, Caption, ModalHeading string }

// ledeLine is the lede in spans, ledeText as plain text, the model's value
// as it is (the page sets it apart).
func (w write) ledeLine(p posting.Plan) posting.Line {
	if w.LedeLine != nil {
		return w.LedeLine(p)
	}
	return say(w.Lede)
}

func ledeText(l posting.Line) string {
	var b strings.Builder
	for _, s := range l {
		b.WriteString(s.Text)
	}
	return b.String()
}

func (w write) modalLede(p posting.Plan) string {
	lede := ledeText(w.ledeLine(p))
	// The page's lede stands under its "An AI assistant asks you to
	// confirm"; the modal has no such line, so its lede names the asker.
	if rest, ok := strings.CutPrefix(lede, "It asks"); ok {
		return "An AI assistant asks" + rest
	}
	return lede
}

func (w write) shownWords(p posting.Plan) ShownWords {
	if w.Shown != nil {
		return w.Shown(p)
	}
	if w.PostCaption == "" {
		return ShownWords{}
	}
	return ShownWords{Heading: "The post", Caption: w.PostCaption, ModalHeading: w.PostCaption}
}

// say is a line of the plugin's own words.
func say(s string) posting.Line { return posting.Line{{Text: s}} }

// Heading is the write in the person's words as plain text, for the
// client's question, titles and lists: what it does and where, without ids
// or the model's message, and any value the model chose in quotes.
func Heading(p posting.Plan) string { return HeadingLine(p).Plain() }

// HeadingLine is the heading in spans, the values the model chose (an
// emoji, a new channel's name) apart, for the views that mark them.
func HeadingLine(p posting.Plan) posting.Line { return writeOf(p.Action).Heading(p) }

// NotesHeading heads a write's notes in every view that lists them: who is
// notified by a post, who sees a pin, what leaving means.
func NotesHeading(p posting.Plan) string { return writeOf(p.Action).notesHeading() }

// Title is a pending write in one line, for lists and notifications.
func Title(plan posting.Plan) string {
	if w := writeOf(plan.Action); w.Title != nil {
		return w.Title(plan)
	}
	return Heading(plan)
}

// Describe is the write as the person checks it in their client. Everything
// the model wrote is set apart between boundary lines whose token occurs
// nowhere in what it wrote, so no text of the model's can close the frame
// early and pose as the question.
func Describe(plan posting.Plan) string {
	w := writeOf(plan.Action)
	if w.Question != nil {
		return w.Question(plan)
	}
	return describeChange(plan, w)
}

// shown is the post a write is about as the person is shown it.
func shown(p posting.Plan) string {
	if writeOf(p.Action).ShowsMessage {
		return p.Message
	}
	return p.Previous
}

func (w write) facts(p posting.Plan) []posting.Fact {
	if w.Facts == nil {
		return nil
	}
	return w.Facts(p)
}

func (w write) asks() string { return or(w.Asks, "make a change as you") }

func (w write) notesHeading() string { return or(w.NotesHeading, defaultNotesHeading) }

// outcomeText says what became of an answered write, in a sentence, and for
// a failure why. place is "" once the record keeps no plan.
func outcomeText(state, action, place, outcome string) (text, reason string) {
	w := writeOf(action)
	switch state {
	case StateWithdrawn:
		// The model's words are left out: the assistant took them back.
		return "Withdrawn: the AI assistant took this back before you answered; " + or(w.Withdrawn, "nothing was changed."), ""
	case StateDone:
		return w.Done(place), ""
	case StateDeclined:
		return w.Declined, ""
	case StateFailed:
		partway, why := failure(outcome)
		if partway {
			return "Failed partway: only part of it was done.", why
		}
		return "Failed: " + or(w.Failed, "nothing was changed."), why
	case StateExecuting:
		return "Accepted: it is being " + or(w.Underway, "done now."), ""
	}
	return "", ""
}

// ToldDone says, for the model, what a carried-out write did.
func ToldDone(plan posting.Plan, permalink string) string {
	w := writeOf(plan.Action)
	if w.Told != nil {
		return w.Told(plan, permalink)
	}
	return strings.TrimSpace(w.Done(plan.Dest.PlaceText()) + " " + permalink)
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// describeChange is a change as the client's form shows it: the heading,
// each fact (the model's words between boundary lines), the post it is
// about, and the notes.
func describeChange(plan posting.Plan, w write) string {
	facts := w.facts(plan)
	texts := []string{shown(plan)}
	for _, f := range facts {
		if f.AI {
			texts = append(texts, f.Value)
		}
	}
	tok := boundaryToken(texts...)
	var b strings.Builder
	fmt.Fprintf(&b, "%s?\n%s\n", w.Heading(plan).Plain(), w.Lede)
	for _, f := range facts {
		if f.AI {
			fmt.Fprintf(&b, "%s, written by the AI:\n----- %s %s -----\n%s\n----- end of %s %s -----\n", f.Label, strings.ToLower(f.Label), tok, f.Value, strings.ToLower(f.Label), tok)
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", f.Label, present.Clean(f.Value))
	}
	if shown := shown(plan); w.PostCaption != "" && shown != "" {
		fmt.Fprintf(&b, "%s:\n----- post %s -----\n%s\n----- end of post %s -----\n", w.PostCaption, tok, shown, tok)
	}
	if len(plan.Notes) > 0 {
		b.WriteString(w.notesHeading() + ":\n")
		for _, n := range plan.Notes {
			b.WriteString("- " + present.Clean(n) + "\n")
		}
	}
	return b.String()
}

// in is " in place" or "" when the place is not known any more.
func in(place string) string {
	if place == "" {
		return ""
	}
	return " in " + place
}

// usernames lists people as "@a, @b and @c".
func usernames(people []posting.Person) string {
	names := make([]string, len(people))
	for i, p := range people {
		names[i] = "@" + p.Username
	}
	return posting.Join(names)
}

// orZero is what a payload's optional part points to, or its zero value:
// a record stored without it reads as empty.
func orZero[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
