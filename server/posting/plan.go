package posting

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// MaxFiles is how many files Mattermost attaches to one post (its post
// model holds at most ten file ids).
const MaxFiles = 10

// Props set on every post this pipeline creates, so people and clients can
// tell it was written by an AI on the poster's behalf.
const (
	PropFromMCP     = "from_mcp"
	PropAttribution = "mcp_attribution"
)

// ErrNotFound is what Mattermost answers for anything the caller cannot
// see; the pipeline passes it through so tools say "not found".
var ErrNotFound = errors.New("not found")

// Mattermost is what the pipeline needs, bound to the caller
// (*mattermost.Caller is one).
type Mattermost interface {
	UserID() string
	MayPost(channelID string) (post, upload bool, err error)
	Post(postID string) (*model.Post, error)
	ServerMaxFileSize() int64
	// AttachmentsEnabled is FileSettings.EnableFileAttachments.
	AttachmentsEnabled() bool
	MemberCount(channelID string) (int64, error)
	// UserIDByUsername is the id of the active account with this username,
	// "" when there is none.
	UserIDByUsername(name string) (string, error)
	// IsChannelMember reports whether a user is in a channel: Mattermost
	// notifies a mention only of a member.
	IsChannelMember(channelID, userID string) (bool, error)
	SearchUsers(term string, limit int) ([]*model.User, error)
	DirectChannelWith(otherID string) (*model.Channel, error)
	GroupChannelWith(otherIDs []string) (*model.Channel, error)
	Uploader
	// DiscardUploads deletes uploaded (or forwarded) files that reached no
	// post.
	DiscardUploads(fileIDs []string) error
	CreatePost(p *model.Post) (*model.Post, error)
}

// Destination is where a post goes: a channel (optionally a reply in a
// thread), or the direct/group message with people (UserIDs, created only
// when the post is executed).
type Destination struct {
	ChannelID string   `json:"channel_id,omitempty"`
	RootID    string   `json:"root_id,omitempty"`
	UserIDs   []string `json:"user_ids,omitempty"`
	// Label is the destination as the model is told it (with ids).
	Label string `json:"label"`
	// Place is the destination in the person's words, for headings and
	// notes: "Harbour ops, CEO Team", "your direct message with @bob".
	Place string `json:"place,omitempty"`
	// Where is the destination in full for the person, without ids: the
	// channel's ~name, kind and team.
	Where string `json:"where,omitempty"`
	// Recipients are the @usernames of UserIDs, in the same order.
	Recipients []string `json:"recipients,omitempty"`
}

// PlaceText is the destination in the person's words; a plan staged before
// Place existed has only its label.
func (d Destination) PlaceText() string {
	if d.Place != "" {
		return d.Place
	}
	return d.Label
}

// Request is what a tool asks to post.
type Request struct {
	Dest    Destination
	Message string
	Files   []Entry
	// Uploaded are files already received into Mattermost for this post
	// (Registry.Receive), posted after Files.
	Uploaded []Staged
	// Attribution is the visible note of whose behalf the AI wrote for.
	Attribution string
}

// Plan is a checked write: everything needed to execute it later, on any
// node. It holds what every view of a write shows alike (where it goes, the
// model's message and files, the post it is about, the notes); Payload holds
// what only its kind knows (approval.Kind), so no write's fields are
// another's.
type Plan struct {
	CallerID    string      `json:"caller_id"`
	Action      string      `json:"action,omitempty"`
	Dest        Destination `json:"dest"`
	Message     string      `json:"message"`
	Files       []Staged    `json:"files"`
	Notes       []string    `json:"notes,omitempty"`
	Attribution string      `json:"attribution"`
	// PostID is the post a change is about; Previous is the message an
	// edit replaces, or of the post a change is about.
	PostID   string `json:"post_id,omitempty"`
	Previous string `json:"previous,omitempty"`
	// Payload is the write's own data, a value of its kind's payload type.
	// It is kept beside the fields above, at the top level of the same JSON
	// object, where records of older versions kept each kind's fields, so
	// they read the same.
	Payload any `json:"-"`
	// stored is the JSON the plan was read from, from which its kind reads
	// its payload.
	stored []byte
}

// shared is a Plan's own fields without its methods, for encoding.
type shared Plan

// MarshalJSON writes the plan's fields and its payload's as one object. A
// plan read from a record and written again without its payload being set
// keeps the payload's fields as they were read, so a record rewritten while
// it waits (claimed, its question left open) loses nothing of its kind's.
func (p Plan) MarshalJSON() ([]byte, error) {
	head, err := json.Marshal(shared(p))
	if err != nil {
		return nil, err
	}
	var own []byte
	switch {
	case p.Payload != nil:
		own, err = json.Marshal(p.Payload)
	case p.stored != nil:
		own, err = storedPayload(p.stored)
	default:
		return head, nil
	}
	if err != nil {
		return nil, err
	}
	if len(own) < 2 || own[0] != '{' {
		return nil, fmt.Errorf("the payload of a %q plan is not a JSON object", p.Action)
	}
	if len(own) == 2 {
		return head, nil
	}
	return append(append(head[:len(head)-1], ','), own[1:]...), nil
}

// storedPayload is the part of a stored plan that is not its shared
// fields: its payload's, as an object of them.
func storedPayload(stored []byte) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(stored, &fields); err != nil {
		return nil, err
	}
	for _, name := range sharedFields {
		delete(fields, name)
	}
	return json.Marshal(fields)
}

// sharedFields are the JSON names of a Plan's own fields.
var sharedFields = func() []string {
	t := reflect.TypeFor[shared]()
	var out []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}()

// UnmarshalJSON reads the plan's fields and keeps the object for its kind
// to read its payload from (DecodePayload).
func (p *Plan) UnmarshalJSON(b []byte) error {
	var s shared
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*p = Plan(s)
	p.stored = bytes.Clone(b)
	return nil
}

// DecodePayload reads the payload a stored plan was written with into v;
// a plan read from no JSON leaves v as it is.
func (p Plan) DecodePayload(v any) error {
	if p.stored == nil {
		return nil
	}
	return json.Unmarshal(p.stored, v)
}

// Props are the marks every post of the plugin carries: that it came
// through MCP, and who it was written for.
func (p Plan) Props() map[string]any {
	return map[string]any{PropFromMCP: true, PropAttribution: p.Attribution}
}

// Prepare checks a request as the caller and stages its files. Nothing is
// written to Mattermost.
func Prepare(ctx context.Context, mm Mattermost, reg Registry, req Request) (Plan, error) {
	plan := Plan{CallerID: mm.UserID(), Dest: req.Dest, Message: req.Message, Attribution: req.Attribution}
	if n := utf8.RuneCountInString(req.Message); n > model.PostMessageMaxRunesV2 {
		return Plan{}, refusal.Newf("The message is %d characters; Mattermost takes at most %d. Shorten it, or put the long part in a file (files: [{name, content}]).", n, model.PostMessageMaxRunesV2)
	}
	files := len(req.Files) + len(req.Uploaded)
	if strings.TrimSpace(req.Message) == "" && files == 0 {
		return Plan{}, refusal.New("Give a message, files, or both: an empty post cannot be sent.", "")
	}
	if files > 0 && !mm.AttachmentsEnabled() {
		return Plan{}, refusal.New("File attachments are turned off on this Mattermost, so a post cannot carry files. Post without them, or put their text in the message.", "")
	}
	if files > MaxFiles {
		return Plan{}, refusal.Newf("%d files were given; one post holds at most %d. Send the rest in a reply.", files, MaxFiles)
	}
	if req.Dest.ChannelID != "" {
		post, upload, err := mm.MayPost(req.Dest.ChannelID)
		if err != nil {
			return Plan{}, err
		}
		if !post {
			return Plan{}, refusal.Newf("You may read %s but not post in it. Choose another channel, or ask its admin.", req.Dest.Label)
		}
		if files > 0 && !upload {
			return Plan{}, refusal.Newf("You may post in %s but not attach files there. Post without files, or choose another channel.", req.Dest.Label)
		}
		if req.Dest.RootID != "" {
			root, err := mm.Post(req.Dest.RootID)
			if err != nil || root.ChannelId != req.Dest.ChannelID {
				return Plan{}, refusal.Newf("The post %s to reply to was not found in %s. Give the id of a post in that channel (read_channel lists them), or leave root_id out.", req.Dest.RootID, req.Dest.Label)
			}
			if root.RootId != "" {
				plan.Dest.RootID = root.RootId
			}
		}
	}
	limit := mm.ServerMaxFileSize()
	// A received file's name is its upload's already: an entry of the same
	// name is the one renamed.
	seen := map[string]bool{}
	for _, s := range req.Uploaded {
		seen[s.Name] = true
	}
	for i, e := range req.Files {
		s, err := reg.Stage(ctx, e)
		if err != nil {
			if r, ok := refusal.As(err); ok {
				return Plan{}, refusal.Newf("File %d: %s", i+1, r)
			}
			return Plan{}, fmt.Errorf("file %d: %w", i+1, err)
		}
		if s.Size > limit {
			return Plan{}, refusal.Newf("File %d, %s, is %s; this Mattermost takes files up to %s. Leave it out or send a smaller one.", i+1, s.Name, present.Size(s.Size), present.Size(limit))
		}
		if seen[s.Name] {
			s.Name = fmt.Sprintf("%d-%s", i+1, s.Name)
		}
		seen[s.Name] = true
		plan.Files = append(plan.Files, s)
	}
	for i, s := range req.Uploaded {
		if s.Kind != KindUploaded || req.Dest.ChannelID == "" {
			return Plan{}, fmt.Errorf("file %d: not a file received for a post in a channel", len(req.Files)+i+1)
		}
		if s.Size > limit {
			return Plan{}, refusal.Newf("File %d, %s, is %s; this Mattermost takes files up to %s. Leave it out or send a smaller one.", len(req.Files)+i+1, s.Name, present.Size(s.Size), present.Size(limit))
		}
		plan.Files = append(plan.Files, s)
	}
	notes, err := mentionNotes(mm, req)
	if err != nil {
		return Plan{}, err
	}
	plan.Notes = notes
	return plan, nil
}

var mentionRE = regexp.MustCompile(`(?:^|[^\w@])@([a-zA-Z0-9][a-zA-Z0-9._\-]*[a-zA-Z0-9_]|[a-zA-Z0-9])`)

// mentionNotes says whom the post notifies, always: the people of a direct
// or group message; each @name that notifies (a member of the channel) and
// each that does not (someone outside it, the caller, nobody at all, with
// the closest usernames); how many people @channel, @all and @here reach;
// and plainly when no mention notifies anyone.
func mentionNotes(mm Mattermost, req Request) ([]string, error) {
	var notes, notified, outside []string
	var self string
	place := req.Dest.PlaceText()
	direct := req.Dest.ChannelID == "" && len(req.Dest.UserIDs) > 0
	if direct {
		who := req.Dest.Recipients
		if len(who) != len(req.Dest.UserIDs) {
			who = []string{fmt.Sprintf("the %d people you write to", len(req.Dest.UserIDs))}
		}
		if len(req.Dest.UserIDs) == 1 {
			notes = append(notes, fmt.Sprintf("%s is notified: it is a direct message to them.", Join(who)))
		} else {
			notes = append(notes, fmt.Sprintf("%s are notified: it is a group message with them.", Join(who)))
		}
	}
	seen := map[string]bool{}
	broadcast := false
	for _, m := range mentionRE.FindAllStringSubmatch(req.Message, -1) {
		name := strings.ToLower(m[1])
		if seen[name] {
			continue
		}
		seen[name] = true
		switch name {
		case "channel", "all", "here":
			broadcast = true
			reach := int64(len(req.Dest.UserIDs) + 1)
			if req.Dest.ChannelID != "" {
				n, err := mm.MemberCount(req.Dest.ChannelID)
				if err != nil {
					return nil, err
				}
				reach = n
			}
			what := "every member"
			if name == "here" {
				what = "every member who is online"
			}
			notes = append(notes, fmt.Sprintf("@%s notifies %s of %s: %d people.", name, what, place, reach))
			continue
		}
		id, err := mm.UserIDByUsername(name)
		if err != nil {
			return nil, err
		}
		if id != "" && id == mm.UserID() {
			self = "@" + name
			continue
		}
		if id != "" {
			member, err := isMember(mm, req.Dest, id)
			if err != nil {
				return nil, err
			}
			switch {
			case member:
				notified = append(notified, "@"+name)
			default:
				outside = append(outside, "@"+name)
			}
			continue
		}
		note := fmt.Sprintf("@%s matches nobody, so it notifies nobody.", name)
		prefix := name
		if len(prefix) > 3 {
			prefix = prefix[:3]
		}
		users, err := mm.SearchUsers(prefix, 50)
		if err != nil {
			return nil, err
		}
		cands := make([]names.Candidate, 0, len(users))
		for _, u := range users {
			cands = append(cands, names.Candidate{Key: u.Username, Names: []string{u.Username}})
		}
		if near := names.Closest(name, cands, 3); len(near) > 0 {
			sort.Strings(near)
			note += " Closest: @" + strings.Join(near, ", @") + "."
		}
		notes = append(notes, note)
	}
	var lead []string
	switch {
	case len(notified) == 1 && !direct:
		lead = append(lead, notified[0]+" is notified by the mention.")
	case len(notified) > 1 && !direct:
		lead = append(lead, Join(notified)+" are notified by their mentions.")
	}
	switch {
	case len(outside) == 1:
		lead = append(lead, fmt.Sprintf("%s is not in %s, so Mattermost does not notify them.", outside[0], place))
	case len(outside) > 1:
		lead = append(lead, fmt.Sprintf("%s are not in %s, so Mattermost does not notify them.", Join(outside), place))
	}
	if self != "" {
		lead = append(lead, fmt.Sprintf("%s is you: your own mention notifies nobody.", self))
	}
	if !direct {
		notes = append(lead, notes...)
	} else {
		notes = append(notes[:1], append(lead, notes[1:]...)...)
	}
	if !direct && len(notified) == 0 && !broadcast {
		notes = append(notes, fmt.Sprintf("Nobody is notified by a mention. Members of %s who chose to be notified of every message still are.", place))
	}
	return notes, nil
}

// isMember reports whether a user is among the people a post reaches.
func isMember(mm Mattermost, dest Destination, userID string) (bool, error) {
	if dest.ChannelID != "" {
		return mm.IsChannelMember(dest.ChannelID, userID)
	}
	return slices.Contains(dest.UserIDs, userID), nil
}

// Join lists names as a person writes them: "a", "a and b", "a, b and c".
func Join(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Result is an executed post.
type Result struct {
	Post    *model.Post
	FileIDs []string
}

// Execute posts an accepted plan as its caller. First every file is checked
// against what the person was shown, so nothing is uploaded when any of
// them changed (Registry.Check: without reading bytes where the source
// vouches for them). Then each is sent (Registry.Send: attachments as
// Mattermost's own copies, other files streamed through a hash, so what is
// uploaded is exactly what was shown and a post holds no file in memory),
// and the post is created at once. If a file turns out to differ while it
// streams, or an upload or the post fails, the files already in Mattermost
// are deleted, so no file outlives a post that was not made.
func Execute(ctx context.Context, mm Mattermost, reg Registry, plan Plan) (Result, error) {
	if mm.UserID() != plan.CallerID {
		return Result{}, ErrNotFound
	}
	// Received files are in Mattermost already: every failure discards
	// them with what was uploaded here.
	received := plan.Uploads()
	for _, f := range plan.Files {
		if err := reg.Check(ctx, f); err != nil {
			return Result{}, discard(mm, received, readAgainRefusal(f, err))
		}
	}
	channelID := plan.Dest.ChannelID
	switch {
	case channelID != "":
	case len(plan.Dest.UserIDs) == 1:
		ch, err := mm.DirectChannelWith(plan.Dest.UserIDs[0])
		if err != nil {
			return Result{}, discard(mm, received, err)
		}
		channelID = ch.Id
	case len(plan.Dest.UserIDs) > 1:
		ch, err := mm.GroupChannelWith(plan.Dest.UserIDs)
		if err != nil {
			return Result{}, discard(mm, received, err)
		}
		channelID = ch.Id
	default:
		return Result{}, discard(mm, received, refusal.New("The post has no destination.", ""))
	}
	if err := ctx.Err(); err != nil {
		return Result{}, discard(mm, received, err)
	}
	var ids []string
	for _, f := range plan.Files {
		id, err := reg.Send(ctx, mm, f, channelID)
		if id != "" {
			ids = append(ids, id)
		}
		if err != nil {
			return Result{}, discard(mm, union(ids, received), readAgainRefusal(f, err))
		}
	}
	post := &model.Post{ChannelId: channelID, RootId: plan.Dest.RootID, Message: plan.Message, FileIds: ids}
	for k, v := range plan.Props() {
		post.AddProp(k, v)
	}
	// The props are for clients and integrations; the attachment's footer is
	// what every Mattermost client shows under the post.
	model.ParseSlackAttachment(post, []*model.SlackAttachment{{Fallback: plan.Attribution, Footer: plan.Attribution}})
	created, err := mm.CreatePost(post)
	if err != nil {
		return Result{}, discard(mm, ids, fmt.Errorf("Mattermost refused the post, so nothing was posted: %w", err))
	}
	return Result{Post: created, FileIDs: ids}, nil
}

// discard deletes the files already in Mattermost for a post that failed
// and says so beside the failure.
func discard(mm Mattermost, ids []string, failure error) error {
	if len(ids) == 0 {
		return failure
	}
	if err := mm.DiscardUploads(ids); err != nil {
		return fmt.Errorf("%w (the %d file(s) already uploaded could not be deleted: %v)", failure, len(ids), err)
	}
	return fmt.Errorf("%w (the %d file(s) already uploaded were deleted)", failure, len(ids))
}

// union is ids followed by those of more it does not hold.
func union(ids, more []string) []string {
	out := append([]string(nil), ids...)
	for _, id := range more {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// uploadFailure is Mattermost refusing an upload: a real failure, reported
// as it is.
type uploadFailure struct{ error }

func (u uploadFailure) Unwrap() error { return u.error }

// readAgainRefusal keeps refusals and upload failures as they are and
// words a failed re-read for the model.
func readAgainRefusal(f Staged, err error) error {
	var upload uploadFailure
	if _, refused := refusal.As(err); refused || errors.As(err, &upload) {
		return err
	}
	return refusal.Newf("%s could not be read again (%v); nothing was sent. Ask again with the file as it is now.", f.Name, err)
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}
