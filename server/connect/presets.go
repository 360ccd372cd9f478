package connect

import "fmt"

// A preset is what a client loads, chosen in its MCP URL's query and
// always within what the admin allows (issue 33): the dialog offers each
// with its own setups and install links, and the size of the tools/list it
// loads, since every client puts that in the model's context before the
// first question.
type Preset struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Text says in one line what the preset loads.
	Text string `json:"text"`
	URL  string `json:"url"`
	// Bytes is the size of the tools/list a client of this URL loads under
	// the admin's settings now.
	Bytes int   `json:"bytes"`
	Setup Setup `json:"setup"`
}

// Preset ids, as the dialog and its tests name them.
const (
	PresetEverything = "everything"
	PresetReadOnly   = "read_only"
	PresetLight      = "light"
)

// presets are the dialog's presets, in the order it shows them, each with
// the query it adds to the MCP URL ("" adds none).
var presets = []struct{ id, name, query, text string }{
	{PresetEverything, "Everything", "", "Every tool the admin allows, listed at once."},
	{PresetReadOnly, "Reading only", "read_only=true", "Every tool that only reads: the client cannot change anything in Mattermost."},
	{PresetLight, "Light start", "toolsets=light", "The everyday reading core; the client finds and loads the other tools when it needs them (find_tools, load_tools)."},
}

// PresetQueries are the queries the presets add to the MCP URL: what the
// plugin measures (Options.ListSize).
func PresetQueries() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.query
	}
	return out
}

// presetsFor is every preset's URL, setups and size for the endpoint at
// mcpURL, carrying token as SetupFor does.
func (s *Service) presetsFor(mcpURL, token string, oauth bool) ([]Preset, error) {
	out := make([]Preset, 0, len(presets))
	for _, p := range presets {
		u := mcpURL
		if p.query != "" {
			u += "?" + p.query
		}
		size, err := s.opts.ListSize(p.query)
		if err != nil {
			return nil, fmt.Errorf("measure the preset %s: %w", p.id, err)
		}
		out = append(out, Preset{ID: p.id, Name: p.name, Text: p.text, URL: u, Bytes: size, Setup: SetupFor(u, token, oauth)})
	}
	return out, nil
}
