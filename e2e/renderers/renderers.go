// Package renderers renders messages the way Mattermost's own apps render a
// post (e2e/node/render.mjs: the web app's lexer rule with a GFM parser,
// and the mobile app's @mattermost/commonmark), so tests can check what a
// post of the plugin's shows a person, not what another markdown library
// makes of it.
package renderers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

// batch bounds the messages one run of the script renders: each comes back
// as HTML twice, and a run's output is bounded (harness.RunNodeScript).
const batch = 400

// Side is what one app makes of a message: its HTML, the href of every
// link, every address it would load (an image's src and the like), raw
// HTML passed through, and the mentions, channel links, hashtags and emoji
// it renders ("type:value", the mobile app's parser alone names them).
type Side struct {
	HTML  string   `json:"html"`
	Links []string `json:"links"`
	Loads []string `json:"loads"`
	Raw   []string `json:"raw"`
	Marks []string `json:"marks"`
}

// Rendering is a message as the web app and the mobile app render it.
type Rendering struct {
	Web    Side `json:"web"`
	Mobile Side `json:"mobile"`
}

// Render renders each of msgs with both apps' renderers, in order.
func Render(ctx context.Context, msgs []string) ([]Rendering, error) {
	out := make([]Rendering, 0, len(msgs))
	for start := 0; start < len(msgs); start += batch {
		part := msgs[start:min(start+batch, len(msgs))]
		in, err := json.Marshal(part)
		if err != nil {
			return nil, err
		}
		var got []Rendering
		if err := harness.RunNodeScriptWithInput(ctx, "render.mjs", nil, nil, in, &got); err != nil {
			return nil, err
		}
		if len(got) != len(part) {
			return nil, fmt.Errorf("render.mjs rendered %d messages of %d", len(got), len(part))
		}
		out = append(out, got...)
	}
	return out, nil
}

// Foreign is what a side renders beyond the links in allowed: every other
// link, anything it loads, raw HTML and any mention, channel link, hashtag
// or emoji. Empty for a message that shows only text and the plugin's own
// links.
func (s Side) Foreign(allowed ...string) []string {
	var out []string
	for _, l := range s.Links {
		if !slices.Contains(allowed, l) {
			out = append(out, "link "+l)
		}
	}
	for _, l := range s.Loads {
		out = append(out, "loads "+l)
	}
	for _, r := range s.Raw {
		out = append(out, "raw HTML "+r)
	}
	for _, m := range s.Marks {
		out = append(out, "renders "+m)
	}
	return out
}

// Missing are the links of allowed that a side does not render.
func (s Side) Missing(allowed ...string) []string {
	var out []string
	for _, l := range allowed {
		if !slices.Contains(s.Links, l) {
			out = append(out, l)
		}
	}
	return out
}
