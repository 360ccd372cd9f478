package catalogue

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// What tools/list weighs is what every client puts in the model's context
// before the first question, so each toolset has a budget of bytes (held by
// the tools package's tests) and the connect dialog shows what each preset
// loads. Both measure here, the way tools/list sends the tools.

// ListEnvelope is what tools/list weighs with no tool: {"tools":[]}.
const ListEnvelope = len(`{"tools":[]}`)

// Weight is what tools add to tools/list in bytes: each as tools/list sends
// it, and the comma after it. A list weighs ListEnvelope plus its tools'
// weights less the last comma, so a toolset weighs the same whichever others
// are listed with it, and the weights of a list's parts add up to it.
func Weight(tools []Tool) (int, error) {
	n := 0
	for _, t := range tools {
		raw, err := json.Marshal(t.MCP())
		if err != nil {
			return 0, fmt.Errorf("tool %q as tools/list sends it: %w", t.Name, err)
		}
		n += len(raw) + len(",")
	}
	return n, nil
}

// ListSize is the size in bytes of the tools/list result that lists tools.
func ListSize(tools []Tool) (int, error) {
	w, err := Weight(tools)
	if err != nil || len(tools) == 0 {
		return ListEnvelope, err
	}
	return ListEnvelope + w - len(","), nil
}

// InToolset is the tools of set, in name order; set zero is the tools
// offered to every connection whatever its toolsets (AlwaysOffered).
func (c *Catalogue) InToolset(set config.Toolset) []Tool {
	var out []Tool
	for _, t := range c.tools {
		if t.Toolset == set {
			out = append(out, t)
		}
	}
	return out
}
