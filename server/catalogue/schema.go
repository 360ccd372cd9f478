package catalogue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// bindArguments decodes a call's arguments into target, refusing any
// argument the tool does not take: the schema does not list
// additionalProperties (every listed byte costs the model context), so the
// server says it, rather than silently ignoring a misspelled filter.
func bindArguments(req mcp.CallToolRequest, target any) error {
	raw := req.Params.RawArguments
	if len(raw) == 0 {
		if r, ok := req.Params.Arguments.(json.RawMessage); ok {
			raw = r
		} else if req.Params.Arguments != nil {
			b, err := json.Marshal(req.Params.Arguments)
			if err != nil {
				return err
			}
			raw = b
		}
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(target)
}

// argumentError is the tool error for arguments that could not be read,
// naming the ones the tool takes.
func argumentError(tool string, accepted []string, err error) string {
	takes := "It takes no arguments."
	if len(accepted) > 0 {
		takes = "It takes: " + strings.Join(accepted, ", ") + "."
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Sprintf("%s has no argument %s. %s Call it again without it.", tool, name, takes)
	}
	if typeErr, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		if typeErr.Field == "" {
			return fmt.Sprintf("The arguments to %s are an object of named arguments; you sent %s. %s Call it again with {\"<argument>\": <value>, ...}.",
				tool, sentKind(typeErr.Value), takes)
		}
		want := jsonKind(typeErr.Type)
		return fmt.Sprintf("%s: argument `%s` takes %s; you sent %s. Call it again with `%s` as %s.",
			tool, typeErr.Field, want, sentKind(typeErr.Value), typeErr.Field, want)
	}
	return fmt.Sprintf("The arguments to %s could not be read (%v). %s Call it again with arguments that match its input schema.", tool, err, takes)
}

// jsonKind names the JSON a Go type is decoded from, as the input schema
// says it ("integer", "string"...), never the Go type.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		plural := map[string]string{"an integer": "integers", "a number": "numbers", "a string": "strings",
			"true or false": "booleans (true or false)", "an object": "objects"}
		if e, ok := plural[jsonKind(t.Elem())]; ok {
			return "a list of " + e
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a value"
}

// sentKind names what a client sent, from encoding/json's description of
// it ("string", "number 1.5", "array"...).
func sentKind(value string) string {
	switch {
	case value == "string":
		return "a string"
	case value == "number":
		return "a number"
	case strings.HasPrefix(value, "number "):
		return "the number " + strings.TrimPrefix(value, "number ")
	case value == "bool":
		return "true or false"
	case value == "array":
		return "a list"
	case value == "object":
		return "an object"
	}
	return value
}

// argumentNames are the top-level properties of an input schema, sorted.
func argumentNames(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var names []string
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// inputSchema is the argument schema as clients get it: a type list
// ["null", T] becomes T everywhere, because leaving an argument out says
// what null would, and some clients reject a list of types; and
// additionalProperties goes, because bindArguments enforces it.
func inputSchema(raw json.RawMessage) json.RawMessage {
	var schema any
	if err := json.Unmarshal(raw, &schema); err != nil {
		return raw
	}
	var plain func(v any)
	plain = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, child := range v {
				switch k {
				case "type":
					v[k] = withoutNull(child)
					continue
				case "additionalProperties":
					if child == false {
						delete(v, k)
						continue
					}
				}
				plain(child)
			}
		case []any:
			for _, child := range v {
				plain(child)
			}
		}
	}
	plain(schema)
	return unescaped(mustJSON(schema, raw))
}

// withoutNull turns the type list ["null", T] into T.
func withoutNull(typ any) any {
	list, ok := typ.([]any)
	if !ok {
		return typ
	}
	var kept []any
	for _, t := range list {
		if t != "null" {
			kept = append(kept, t)
		}
	}
	if len(kept) == 1 {
		return kept[0]
	}
	return kept
}

// omittedWhenEmpty names the JSON fields of a result struct marked
// omitempty: encoding/json leaves a nil slice or map out rather than
// writing null, so their schema need not allow null.
func omittedWhenEmpty(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return out
	}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			for k, v := range omittedWhenEmpty(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name != "-" && strings.Contains(","+opts+",", ",omitempty,") {
			out[name] = true
		}
	}
	return out
}

// compactSchema keeps what a client validates most (the answer's own
// fields and their types) and drops the rest (which fields are always
// there, the detail of nested objects): every listed byte sits in the
// model's context before the first question, and the text of each answer
// already describes the rest.
func outputSchema(raw json.RawMessage, out reflect.Type) json.RawMessage {
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		return raw
	}
	delete(schema, "additionalProperties")
	delete(schema, "required")
	omitted := omittedWhenEmpty(out)
	if props, ok := schema["properties"].(map[string]any); ok {
		for name, p := range props {
			if field, ok := p.(map[string]any); ok {
				typ := field["type"]
				if omitted[name] {
					typ = withoutNull(typ)
				}
				props[name] = map[string]any{"type": typ}
			}
		}
	}
	return unescaped(mustJSON(schema, raw))
}

func mustJSON(v any, fallback json.RawMessage) json.RawMessage {
	out, err := json.Marshal(v)
	if err != nil {
		return fallback
	}
	return out
}

// unescaped is raw JSON without Go's HTML escapes (\u003c for <): six
// bytes for one, in text the model reads.
func unescaped(raw json.RawMessage) json.RawMessage {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return raw
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
