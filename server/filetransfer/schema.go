package filetransfer

import (
	"encoding/json"
)

// SchemaKeyword is the JSON Schema extension keyword (SEP-2356) that marks
// a URI string as a file input.
const SchemaKeyword = "x-mcp-file"

// FileInput is the value of x-mcp-file: what a field takes. No accept: a
// post takes a file of any type.
type FileInput struct {
	MaxSize       int64    `json:"maxSize,omitempty"`
	TransferModes []string `json:"transferModes,omitempty"`
}

// Input is what a file field takes from a client that declared cap: both
// modes and the largest workspace file where it uploads; data: URIs alone,
// and so at most MaxInlineBytes, where it does not.
func Input(cap *Capability, maxFile int64) FileInput {
	in := FileInput{MaxSize: maxFile, TransferModes: cap.Modes()}
	if !cap.Uploads() {
		in.MaxSize = min(maxFile, MaxInlineBytes)
	}
	return in
}

// uriDescription is what the model reads of file_uris. Clients that
// implement the SEP (Codex) replace it with their own guidance on what to
// give, so it says what the field does rather than how to encode.
const uriDescription = "The person's own files to attach, each a data: URI or a file URI from files/authorizeUpload; each joins files[], and the person sees every file (name, size, sha256) before anything is sent."

// property is the file_uris property for a client that declared cap.
func property(cap *Capability, maxFile int64) map[string]any {
	return map[string]any{
		"type": "array",
		"items": map[string]any{
			"type":        "string",
			"format":      "uri",
			SchemaKeyword: Input(cap, maxFile),
		},
		"maxItems":    MaxURIs,
		"description": uriDescription,
	}
}

// DecorateTools adds, to a tools/list result, the file_uris argument,
// marked with x-mcp-file, to every tool that takes files. Anything it
// cannot read passes unchanged.
func (s *Service) DecorateTools(cap *Capability, result json.RawMessage) json.RawMessage {
	var res map[string]json.RawMessage
	var tools []map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil || json.Unmarshal(res["tools"], &tools) != nil {
		return result
	}
	prop := property(cap, s.Backend.MaxFileBytes())
	for _, tool := range tools {
		var name string
		if json.Unmarshal(tool["name"], &name) != nil || !s.TakesFiles(name) {
			continue
		}
		var schema map[string]any
		if json.Unmarshal(tool["inputSchema"], &schema) != nil {
			continue
		}
		props, _ := schema["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
		}
		props[URIsArgument] = prop
		schema["properties"] = props
		raw, err := json.Marshal(schema)
		if err != nil {
			continue
		}
		tool["inputSchema"] = raw
	}
	raw, err := json.Marshal(tools)
	if err != nil {
		return result
	}
	res["tools"] = raw
	out, err := json.Marshal(res)
	if err != nil {
		return result
	}
	return out
}
