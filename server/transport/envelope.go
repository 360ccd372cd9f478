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
	// paramsMalformed is params of another shape than the transport's
	// (not an object, or a member of another type).
	paramsMalformed bool
	// metaMembers are the members of params._meta the transport reads.
	metaMembers envelopeMeta
	// tool is params.name of a tools/call.
	tool string
	// answer is a client's answer to a question of the server: an id and
	// a result or an error, no method.
	answer bool
	// body is the message as mcp-go is handed it (rewriteParams changes
	// it): params whole are read from it only for the few methods whose
	// concern hands them on (rawParams), so a tool call's params are
	// decoded once, into their members.
	body []byte
}

// envelopeParams are the members of params the transport reads, each as
// sent. A tool's arguments are scanned past, never copied: mcp-go reads
// them.
type envelopeParams struct {
	Name         string          `json:"name"`
	Meta         json.RawMessage `json:"_meta"`
	Task         json.RawMessage `json:"task"`
	Capabilities json.RawMessage `json:"capabilities"`
	// URI is what resources/read, subscribe and unsubscribe name; Cursor
	// is resources/list's page.
	URI    string `json:"uri"`
	Cursor string `json:"cursor"`
	// Level is logging/setLevel's, as sent (checked by setLevel).
	Level json.RawMessage `json:"level"`
	// RequestID is the request a notifications/cancelled cancels.
	RequestID json.RawMessage `json:"requestId"`
	// Notifications is what a subscriptions/listen asks to hear.
	Notifications json.RawMessage `json:"notifications"`
}

// envelopeMeta are the members of _meta that a 2026-07-28 request names
// itself by, each as sent.
type envelopeMeta struct {
	ClientInfo         json.RawMessage `json:"io.modelcontextprotocol/clientInfo"`
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	ProtocolVersion    json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"`
}

// parseEnvelope reads a message; what is not a JSON object gives an
// envelope of the bytes alone, which no concern acts on (mcp-go answers it
// a parse error).
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
		// still leave the method and id to read; params stay readable
		// whole (rawParams) for the concern that says what is wrong.
		var head struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &head) != nil {
			return envelope{body: body}
		}
		return envelope{id: nullIsNone(head.ID), method: head.Method, body: body, paramsMalformed: true}
	}
	e := envelope{id: nullIsNone(msg.ID), method: msg.Method, body: body}
	if msg.Params != nil {
		e.params, e.hasParams = *msg.Params, true
		// _meta is read once for what several concerns ask of it; one
		// that is no object names nothing.
		_ = json.Unmarshal(e.params.Meta, &e.metaMembers)
	}
	e.answer = msg.Method == "" && e.id != nil && (len(msg.Result) > 0 || len(msg.Error) > 0)
	if e.method == string(mcp.MethodToolsCall) {
		e.tool = e.params.Name
	}
	return e
}

// rewriteParams is the message with its params changed by change, which
// reports whether it changed them; the envelope then reads the new params.
// It returns nil when params are no object or nothing changed. Members of
// the message besides its id, method and params are left out: JSON-RPC has
// none other.
func (e *envelope) rewriteParams(change func(params map[string]json.RawMessage) bool) []byte {
	var params map[string]json.RawMessage
	if json.Unmarshal(e.rawParams(), &params) != nil || params == nil || !change(params) {
		return nil
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil
	}
	method, _ := json.Marshal(e.method)
	body := []byte(`{"jsonrpc":"2.0",`)
	if e.id != nil {
		body = append(append(append(body, `"id":`...), e.id...), ',')
	}
	body = append(append(append(body, `"method":`...), method...), `,"params":`...)
	body = append(append(body, raw...), '}')
	e.body = body
	return body
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

// rawParams is params as sent (nil when absent), of any shape: for the
// concerns that hand params on whole (tasks, file transfer, prompts/get,
// a rewrite), read when asked, since a tool call needs only its members.
func (e envelope) rawParams() json.RawMessage {
	var msg struct {
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(e.body, &msg) != nil {
		return nil
	}
	return msg.Params
}

// meta is params._meta as sent (nil when absent).
func (e envelope) meta() json.RawMessage { return e.params.Meta }

// metaIsObject reports whether _meta is absent, null or an object, as
// mcp-go reads it (anything else mcp-go refuses).
func (e envelope) metaIsObject() bool {
	m := e.meta()
	return len(m) == 0 || m[0] == '{' || string(m) == "null"
}

// clientInfo is the client named in _meta (2026-07-28 requests name
// themselves in each request).
func (e envelope) clientInfo() (mcp.Implementation, bool) {
	var info mcp.Implementation
	if len(e.metaMembers.ClientInfo) == 0 || json.Unmarshal(e.metaMembers.ClientInfo, &info) != nil {
		return mcp.Implementation{}, false
	}
	return info, true
}

// metaProtocolVersion is the protocol version named in _meta ("" none).
func (e envelope) metaProtocolVersion() string {
	var v string
	_ = json.Unmarshal(e.metaMembers.ProtocolVersion, &v)
	return v
}
