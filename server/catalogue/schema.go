package catalogue

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

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
// what null would, and some clients reject a list of types;
// additionalProperties goes, because bindArguments enforces it; and an
// object of no arguments says so with empty properties, since strict
// clients (OpenAI's) fall back on an object that names none.
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
			_, props := v["properties"]
			_, values := v["additionalProperties"]
			if v["type"] == "object" && !props && !values {
				v["properties"] = map[string]any{}
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

// outputSchema is the result schema as clients get it. It keeps what a
// client validates most (each field's type, down through objects, their
// fields and a map's values, to lists) and drops the rest (which fields are
// always there, what a list holds): every listed byte sits in the model's
// context before the first question, and the text of each answer already
// describes the rest. Every node has one type, as clients that map schemas
// onto a single-type dialect (Gemini's function declarations) need: a list
// or map is never null (emptyLists encodes it [] or {}), nor a field left
// out when empty; a pointer that may be null is anyOf null and its object.
func outputSchema(raw json.RawMessage, out reflect.Type) json.RawMessage {
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		return raw
	}
	return unescaped(mustJSON(compact(schema, out, false), raw))
}

// compact is the output schema node of a value of Go type t (nil when not
// known), held in a field marked omitempty or not.
func compact(node map[string]any, t reflect.Type, omitempty bool) any {
	typ := node["type"]
	nullable := false
	if list, ok := typ.([]any); ok && slices.Contains(list, "null") {
		typ = withoutNull(typ)
		nullable = mayBeNull(t, omitempty)
	}
	kept := map[string]any{"type": typ}
	if typ == "object" {
		if values, ok := node["additionalProperties"].(map[string]any); ok {
			kept["additionalProperties"] = compact(values, mapValue(t), false)
		} else {
			props, _ := node["properties"].(map[string]any)
			fields := jsonFields(t)
			compacted := make(map[string]any, len(props))
			for name, p := range props {
				if child, ok := p.(map[string]any); ok {
					compacted[name] = compact(child, fields[name].Type, fields[name].omitempty)
				}
			}
			kept["properties"] = compacted
		}
	}
	if nullable {
		return map[string]any{"anyOf": []any{map[string]any{"type": "null"}, kept}}
	}
	return kept
}

// mayBeNull reports whether encoding/json can write null for a value of
// type t: not in a field left out when empty, nor for a list or a map,
// which emptyLists writes [] or {}; a pointer or an interface can, and so
// can a type not known or one that encodes itself.
func mayBeNull(t reflect.Type, omitempty bool) bool {
	if omitempty {
		return false
	}
	if t == nil || encodesItself(t) {
		return true
	}
	return t.Kind() != reflect.Slice && t.Kind() != reflect.Map
}

// mapValue is the type of a map's values, or nil when t is not a map.
func mapValue(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Map {
		return nil
	}
	return t.Elem()
}

// field is a struct field as encoding/json writes it.
type field struct {
	Type      reflect.Type
	omitempty bool
}

// jsonFields are the fields of struct type t by their JSON names, those of
// embedded structs included; none when t is not a struct.
func jsonFields(t reflect.Type) map[string]field {
	out := map[string]field{}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return out
	}
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			for k, v := range jsonFields(f.Type) {
				if _, shadowed := out[k]; !shadowed {
					out[k] = v
				}
			}
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = field{Type: f.Type, omitempty: strings.Contains(","+opts+",", ",omitempty,")}
	}
	return out
}

// emptyLists is v with every nil list and map in it, at any depth, made
// empty, so that it encodes [] or {} as its output schema says rather than
// null (encoding/json writes a nil slice or map as null). A value without
// a nil list is v itself; otherwise the parts on the way to one are copied,
// never changed in place, since a handler's result may share its lists
// with a cache. The dynamic type stays the result struct, which readers
// such as the prompts assert.
func emptyLists(v any) any {
	if v == nil {
		return nil
	}
	if filled, changed := withEmptyLists(reflect.ValueOf(v)); changed {
		return filled.Interface()
	}
	return v
}

// withEmptyLists is emptyLists on a reflect.Value, with whether anything
// in it changed.
func withEmptyLists(v reflect.Value) (reflect.Value, bool) {
	t := v.Type()
	facts := listFactsOf(t)
	if facts.encodesItself {
		return v, false
	}
	switch v.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return reflect.MakeSlice(t, 0, 0), true
		}
		if !facts.elemMayHoldLists {
			return v, false
		}
		var out reflect.Value
		for i := range v.Len() {
			if e, changed := withEmptyLists(v.Index(i)); changed {
				if !out.IsValid() {
					out = reflect.MakeSlice(t, v.Len(), v.Len())
					reflect.Copy(out, v)
				}
				out.Index(i).Set(e)
			}
		}
		return orOriginal(out, v)
	case reflect.Map:
		if v.IsNil() {
			return reflect.MakeMapWithSize(t, 0), true
		}
		if !facts.elemMayHoldLists {
			return v, false
		}
		var out reflect.Value
		for it := v.MapRange(); it.Next(); {
			if e, changed := withEmptyLists(it.Value()); changed {
				if !out.IsValid() {
					out = reflect.MakeMapWithSize(t, v.Len())
					for c := v.MapRange(); c.Next(); {
						out.SetMapIndex(c.Key(), c.Value())
					}
				}
				out.SetMapIndex(it.Key(), e)
			}
		}
		return orOriginal(out, v)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e, changed := withEmptyLists(v.Elem())
		if !changed {
			return v, false
		}
		if v.Kind() == reflect.Pointer {
			p := reflect.New(t.Elem())
			p.Elem().Set(e)
			return p, true
		}
		out := reflect.New(t).Elem()
		out.Set(e)
		return out, true
	case reflect.Struct:
		var out reflect.Value
		for _, i := range facts.fields {
			if e, changed := withEmptyLists(v.Field(i)); changed {
				if !out.IsValid() {
					out = reflect.New(t).Elem()
					out.Set(v)
				}
				out.Field(i).Set(e)
			}
		}
		return orOriginal(out, v)
	case reflect.Array:
		if !facts.elemMayHoldLists {
			return v, false
		}
		var out reflect.Value
		for i := range v.Len() {
			if e, changed := withEmptyLists(v.Index(i)); changed {
				if !out.IsValid() {
					out = reflect.New(t).Elem()
					out.Set(v)
				}
				out.Index(i).Set(e)
			}
		}
		return orOriginal(out, v)
	}
	return v, false
}

func orOriginal(changed, original reflect.Value) (reflect.Value, bool) {
	if changed.IsValid() {
		return changed, true
	}
	return original, false
}

// listFacts is what withEmptyLists needs to know of a type, worked out once
// per type: every answer of a tool is walked, and asking reflect again for
// each field's type and methods was most of the walk.
type listFacts struct {
	encodesItself bool
	// elemMayHoldLists is, for a list, map or array, whether its elements
	// can hold one.
	elemMayHoldLists bool
	// fields is, for a struct, its exported fields that can hold a list or
	// map (encoding/json skips the others; reflect cannot set them).
	fields []int
}

// listFactsKnown is listFacts by type, filled as answers are walked.
var listFactsKnown sync.Map

func listFactsOf(t reflect.Type) *listFacts {
	if f, ok := listFactsKnown.Load(t); ok {
		return f.(*listFacts)
	}
	f := &listFacts{encodesItself: encodesItself(t)}
	switch t.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array:
		f.elemMayHoldLists = mayHoldLists(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if sf := t.Field(i); sf.IsExported() && mayHoldLists(sf.Type) {
				f.fields = append(f.fields, i)
			}
		}
	}
	known, _ := listFactsKnown.LoadOrStore(t, f)
	return known.(*listFacts)
}

// mayHoldLists reports whether a value of type t can hold a list or map:
// a list of strings or numbers need not be walked element by element.
func mayHoldLists(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return false
	}
	return !encodesItself(t)
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// encodesItself reports whether values of type t (or pointers to them)
// write their own JSON, which emptyLists leaves as they are: a nil
// json.RawMessage is null, and an empty one is not JSON at all.
func encodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonMarshaler) || t.Implements(textMarshaler) || p.Implements(jsonMarshaler) || p.Implements(textMarshaler)
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
