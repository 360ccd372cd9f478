// The question a write asks the person through their MCP client
// (elicitation): what it shows, the single answer it takes, and the signed
// state that lets any cluster node finish the call when the client comes
// back with the answer.

package approval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// AnswerInputID is the key of the one input request every confirmed write
// sends; its value is the one clients have seen since only posts asked.
const AnswerInputID = "confirm_post"

// Modes of asking through the client.
const (
	ModeForm = "form"
	ModeURL  = "url"
)

// clientAsks reports which elicitation modes the client of this request
// declared: per request for protocol 2026-07-28 and later, at initialize
// (restored on any node from the session record) before that. An empty
// elicitation capability means form mode, as the 2025-11-25 revision says.
func clientAsks(ctx context.Context) (form, url bool) {
	caps := transport.ClientCapabilities(ctx)
	if caps == nil || caps.Elicitation == nil {
		return false, false
	}
	e := caps.Elicitation
	return e.Form != nil || (e.Form == nil && e.URL == nil), e.URL != nil
}

// Property is the form's one field. Its name carries part of the question's
// id, so an answer can only ever confirm the question it was given for.
func Property(recordID string) string {
	if len(recordID) > 8 {
		recordID = recordID[:8]
	}
	return "post_" + recordID
}

// formQuestion is the form-mode question: everything that will be sent, and one
// required boolean with no default, so a client that accepts an empty form
// without showing it cannot say yes.
func formQuestion(plan posting.Plan, recordID string) mcp.ElicitationParams {
	prop := Property(recordID)
	return mcp.ElicitationParams{
		Mode:    mcp.ElicitationModeForm,
		Message: Describe(plan) + "\nTick the box and accept to do exactly this. Otherwise nothing is uploaded, posted or changed.",
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				prop: map[string]any{
					"type":        "boolean",
					"title":       writeOf(plan.Action).Box,
					"description": "Yes, as you, in " + present.Clean(plan.Dest.Label) + ".",
				},
			},
			"required": []string{prop},
		},
	}
}

// urlQuestion is the url-mode question: the person answers on the Mattermost page.
func urlQuestion(plan posting.Plan, recordID, pageURL string) mcp.ElicitationParams {
	return mcp.ElicitationParams{
		Mode:          mcp.ElicitationModeURL,
		ElicitationID: recordID,
		URL:           pageURL,
		Message:       fmt.Sprintf("An AI assistant asks to write as you in %s. Open Mattermost to see exactly what, then accept or decline there.", present.Clean(plan.Dest.Label)),
	}
}

// boundaryToken is a short token that occurs in none of texts: derived
// from them (so the same question reads the same when asked again) and
// drawn again until it is absent.
func boundaryToken(texts ...string) string {
	all := strings.Join(texts, "\x00")
	for n := 0; ; n++ {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%s", n, all)))
		tok := hex.EncodeToString(sum[:5])
		if !strings.Contains(all, tok) {
			return tok
		}
	}
}

// Verdict is what the person answered.
type Verdict int

const (
	// NoAnswer: the client sent nothing for the question.
	NoAnswer Verdict = iota
	Accepted
	Declined
	Cancelled
)

// readVerdict interprets the client's answer to a question about recordID. In form
// mode only an accept with the box ticked is a yes; an accept without it is
// a no. In url mode accept means the person went to the page, whose own
// answer decides.
func readVerdict(responses mcp.InputResponses, mode, recordID string) Verdict {
	res := server.ElicitationResponse(responses, AnswerInputID)
	if res == nil {
		return NoAnswer
	}
	switch res.Action {
	case mcp.ElicitationResponseActionDecline:
		return Declined
	case mcp.ElicitationResponseActionCancel:
		return Cancelled
	case mcp.ElicitationResponseActionAccept:
		if mode == ModeURL {
			return Accepted
		}
		content, _ := res.Content.(map[string]any)
		if ticked, _ := content[Property(recordID)].(bool); ticked {
			return Accepted
		}
		return Declined
	}
	return NoAnswer
}

// OpensPages reports whether the client of ctx can show the person a page
// of this plugin (url-mode elicitation) where the question reaches it: a
// client of 2026-07-28 in its answer, an older one on the call's stream,
// which only a Mattermost that streams delivers.
func (a *Approvals) OpensPages(ctx context.Context) bool {
	_, url := a.asksHere(ctx)
	return url
}

// asksHere is what the client of ctx can be asked where the question can
// reach it: a client of 2025-11-25 or earlier is asked on the call's
// stream, which only a Mattermost that streams delivers.
func (a *Approvals) asksHere(ctx context.Context) (form, url bool) {
	if !server.IsModernRequest(ctx) && a.opts.Streams != nil && !a.opts.Streams() {
		return false, false
	}
	return clientAsks(ctx)
}

// TellPageDone tells the client of ctx, on the call's own stream, that the
// url-mode question elicitationID is over, so it closes its prompt.
func (a *Approvals) TellPageDone(ctx context.Context, elicitationID string) {
	a.completed(ctx, elicitationID)
}
