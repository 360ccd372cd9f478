package prompts

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

const (
	// maxEmbedBytes bounds one embedded answer: a tool's window is already
	// about this (32 KiB, some 8k tokens); a longer one is cut with a note.
	maxEmbedBytes = 32 << 10
	// maxPromptBytes bounds all the embedded answers of one prompt (about
	// 24k tokens): catch_up reads several channels and threads, and what
	// does not fit is named with the call that reads it.
	maxPromptBytes = 96 << 10
)

// reader calls the catalogue's own tools for a prompt, as the person, and
// keeps the prompt within maxPromptBytes. Each tool it runs counts against
// the person's rate as a tool call (transport.CountRead).
type reader struct {
	cat *catalogue.Catalogue
	cfg config.Configuration
	// ch is what the connection chose: the prompt reads only with tools
	// offered to it.
	ch   config.Choice
	used int
}

// answer is one tool's answer as a prompt embeds it.
type answer struct {
	// call is the tool call, as the model would write it.
	call string
	text string
	// data is the structured content (the tool's result struct).
	data any
	// refused is a tool error: text says why and what to do.
	refused bool
}

// read calls tool with args as the person of ctx and returns its answer.
func (r *reader) read(ctx context.Context, tool string, args map[string]any) answer {
	call := callText(tool, args)
	t, ok := r.cat.Tool(tool)
	if !ok || !catalogue.OfferedTo(t, r.cfg, r.ch) {
		return answer{call: call, refused: true, text: tool + " is not offered on this Mattermost now, so this part was left out."}
	}
	if refusal := transport.CountRead(ctx, tool); refusal != "" {
		return answer{call: call, refused: true, text: refusal}
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := t.Handler(ctx, req)
	if err != nil {
		return answer{call: call, refused: true, text: fmt.Sprintf("Mattermost could not answer %s just now, so this part was left out; call it yourself to try again.", call)}
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(tc.Text)
		}
	}
	return answer{call: call, text: b.String(), data: res.StructuredContent, refused: res.IsError}
}

// embed is a tool's answer as an embedded resource at uri, cut to
// maxEmbedBytes and to what is left of maxPromptBytes; an answer that no
// longer fits is left out, and the note says so with the call that reads it.
func (r *reader) embed(uri string, a answer) mcp.PromptMessage {
	text := a.text
	left := maxPromptBytes - r.used
	limit := min(maxEmbedBytes, left)
	switch {
	case limit < 512:
		text = fmt.Sprintf("[Left out: this prompt is already %d KiB, its bound. Call %s to read it.]", r.used>>10, a.call)
	case len(text) > limit:
		cut := text[:limit]
		for !utf8.ValidString(cut) {
			cut = cut[:len(cut)-1]
		}
		text = cut + fmt.Sprintf("\n[Cut here: this part of the prompt is bounded to %d KiB, and the answer was %d KiB. Call %s to read it whole, in pages.]", limit>>10, len(a.text)>>10, a.call)
	}
	r.used += len(text)
	return mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: text}))
}

// say is a message of instructions for the model.
func say(format string, a ...any) mcp.PromptMessage {
	return mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(fmt.Sprintf(format, a...)))
}

// callText is a tool call written as the model writes one.
func callText(tool string, args map[string]any) string {
	b, err := json.Marshal(args)
	if err != nil || len(args) == 0 {
		return tool + "()"
	}
	return tool + "(" + string(b) + ")"
}

// The URIs of the embedded answers: the resource templates' where one
// names the same thing (mattermost://channel/{team}/{channel},
// mattermost://thread/{post_id}, mattermost://file/{file_id}), and a plain
// name for the lists catch_up and find_file embed.

func channelURI(team, channel string) string {
	if team == "" {
		// Direct and group messages have no team.
		team = "-"
	}
	return "mattermost://channel/" + url.PathEscape(team) + "/" + url.PathEscape(strings.TrimPrefix(channel, "~"))
}

func threadURI(postID string) string { return "mattermost://thread/" + url.PathEscape(postID) }

func fileURI(fileID string) string { return "mattermost://file/" + url.PathEscape(fileID) }

func urlQuery(s string) string { return url.QueryEscape(s) }
