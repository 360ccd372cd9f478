package transport

import (
	"bytes"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// envelope is one JSON-RPC message of a POST as the transport's concerns
// read it: decoded once, where each concern used to decode the body again
// for the one member it needed (issue 47). The body itself is bounded
// before it is read (ServeMCP).
type envelope struct {
	// id is the request's id as sent; nil for a notification.
	id json.RawMessage
	// method is empty for an answer (or a body that is no message).
	method string
	// params holds the members of params the transport reads; hasParams
	// is false when params is absent or not an object.
	params    envelopeParams
	hasParams bool
	// tool is params.name of a tools/call.
	tool string
	// answer is a client's answer to a question of the server: an id and
	// a result or an error, no method.
	answer bool
}

// envelopeParams are the members of params the transport reads, each as
// sent. A tool's arguments are scanned past, never copied: mcp-go reads
// them.
type envelopeParams struct {
	Name         string          `json:"name"`
	Meta         json.RawMessage `json:"_meta"`
	Task         json.RawMessage `json:"task"`
	Capabilities json.RawMessage `json:"capabilities"`
}

// parseEnvelope reads a message; what is not a JSON object gives the zero
// envelope, which no concern acts on (mcp-go answers it a parse error).
func parseEnvelope(body []byte) envelope {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params *envelopeParams `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &msg) != nil {
		// Params of another shape (an array, a name that is no string)
		// still leave the method and id to read.
		var head struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &head) != nil {
			return envelope{}
		}
		return envelope{id: nullIsNone(head.ID), method: head.Method}
	}
	e := envelope{id: nullIsNone(msg.ID), method: msg.Method}
	if msg.Params != nil {
		e.params, e.hasParams = *msg.Params, true
	}
	e.answer = msg.Method == "" && e.id != nil && (len(msg.Result) > 0 || len(msg.Error) > 0)
	if e.method == string(mcp.MethodToolsCall) {
		e.tool = e.params.Name
	}
	return e
}

// nullIsNone reads an id of JSON null as no id, as JSON-RPC does.
func nullIsNone(id json.RawMessage) json.RawMessage {
	if bytes.Equal(id, []byte("null")) {
		return nil
	}
	return id
}

// requestID is the id to answer with: null for none.
func (e envelope) requestID() json.RawMessage {
	if e.id == nil {
		return json.RawMessage("null")
	}
	return e.id
}

// meta is params._meta as sent (nil when absent).
func (e envelope) meta() json.RawMessage { return e.params.Meta }

// clientInfo is the client named in _meta (2026-07-28 requests name
// themselves in each request).
func (e envelope) clientInfo() (mcp.Implementation, bool) {
	var m map[string]json.RawMessage
	var info mcp.Implementation
	if json.Unmarshal(e.meta(), &m) != nil {
		return info, false
	}
	raw, ok := m[mcp.MetaKeyClientInfo]
	if !ok || json.Unmarshal(raw, &info) != nil {
		return mcp.Implementation{}, false
	}
	return info, true
}
