package transport

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-server/mattermost-plugin-mcp/server/admission"
	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
)

const (
	// refusalNotedEvery is how often one person's refusal for one reason
	// reaches the audit trail and the log: a client retrying in a loop
	// would otherwise write an entry a request.
	refusalNotedEvery = time.Minute
	// maxRefusalsNoted bounds the (person, reason) pairs remembered for
	// that: past it the lapsed ones go, and when none has lapsed, all (a
	// few more entries are then written).
	maxRefusalsNoted = 10_000
	// maxPeekBytes bounds what is read of a refused request's body to find
	// the client's name in its initialize: clientInfo comes first in any
	// real one, well within this.
	maxPeekBytes = 16 << 10
	// reasonDeactivated is the audit reason of a request with the token of
	// a deactivated account.
	reasonDeactivated = admission.ReasonDeactivated
)

// refusalsNoted is when each person's refusal for each reason was last
// written to the audit trail on this node.
type refusalsNoted struct {
	mu sync.Mutex
	at map[[2]string]time.Time
}

// due reports whether the refusal is to be written now, and if so counts it
// as written.
func (n *refusalsNoted) due(userID, reason string, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	key := [2]string{userID, reason}
	if last, ok := n.at[key]; ok && now.Sub(last) < refusalNotedEvery && !now.Before(last) {
		return false
	}
	if n.at == nil {
		n.at = map[[2]string]time.Time{}
	}
	if len(n.at) >= maxRefusalsNoted {
		for k, last := range n.at {
			if now.Sub(last) >= refusalNotedEvery {
				delete(n.at, k)
			}
		}
		if len(n.at) >= maxRefusalsNoted {
			clear(n.at)
		}
	}
	n.at[key] = now
	return true
}

// recorder is where refusals are recorded: Options.Audit, or nowhere.
func (t *Transport) recorder() audit.Recorder {
	if t.opts.Audit == nil {
		return audit.Nop{}
	}
	return t.opts.Audit
}

// Admitted answers whether userID may use MCP now, by the checks every
// request to the MCP endpoint passes (Authenticate), for a route that
// acts for a person without their Mattermost credential (the drop URL):
// the account exists and is active (trusted for activeFor once found so;
// a deactivation this node hears of ends that at once), and the admin's
// rule admits it (Options.Admits, over what is known of the person from
// at most a minute ago). A deactivated or missing account is refused with
// admission.ReasonDeactivated and no message: the caller words it for its
// reader. An error is a lookup that failed.
func (t *Transport) Admitted(userID string) (admission.Verdict, error) {
	active, err := t.userActive(userID)
	if err != nil {
		return admission.Verdict{}, err
	}
	if !active {
		return admission.Verdict{Reason: reasonDeactivated}, nil
	}
	if t.opts.Admits == nil {
		return admission.Allowed, nil
	}
	return t.opts.Admits(userID)
}

// admitted applies the admin's rule of who may connect to an active user
// (Options.Admits). Anyone else gets 403 with the one line the rule gives,
// as a JSON-RPC error without id on the MCP endpoint, and nothing else;
// a failed lookup gets 503 and a line to try again.
func (t *Transport) admitted(w http.ResponseWriter, r *http.Request, userID string) bool {
	if t.opts.Admits == nil {
		return true
	}
	v, err := t.opts.Admits(userID)
	if err != nil {
		t.opts.Log.Error("Could not look up whether the calling user may connect", "user_id", userID, "error", err.Error())
		http.Error(w, "Mattermost could not look up whether you may connect an AI client; try again shortly.", http.StatusServiceUnavailable)
		return false
	}
	if v.Allowed {
		return true
	}
	t.noteRefusal(r, userID, v.Reason)
	if strings.HasSuffix(r.URL.Path, MCPPath) {
		writeRPCError(w, http.StatusForbidden, json.RawMessage("null"), mcp.INVALID_REQUEST, v.Message)
		return false
	}
	http.Error(w, v.Message, http.StatusForbidden)
	return false
}

// noteRefusal records a refused request in the audit trail and the log,
// once a minute per person and reason, with the client's name and version
// where the request shows them.
func (t *Transport) noteRefusal(r *http.Request, userID, reason string) {
	now := time.Now()
	if !t.refusals.due(userID, reason, now) {
		return
	}
	name, version := t.refusedClient(r, userID)
	t.opts.Log.Info("Refused an MCP request of a signed-in person", "user_id", userID, "reason", reason,
		"client_name", name, "path", r.URL.Path)
	t.recorder().Record(audit.Event{At: now, Kind: audit.KindSignIn, UserID: userID, Outcome: audit.OutcomeRefused,
		Reason: reason, ClientName: name, ClientVersion: version})
}

// refusedClient is the client of a refused request as far as it tells: its
// session's record, or the clientInfo of its initialize (the first request
// of every client, and the only one a refused client ever gets to send).
func (t *Transport) refusedClient(r *http.Request, userID string) (name, version string) {
	if !strings.HasSuffix(r.URL.Path, MCPPath) {
		return "", ""
	}
	if id := r.Header.Get(server.HeaderKeySessionID); id != "" {
		if rec, err := t.sessions.load(id); err == nil && rec != nil && rec.UserID == userID {
			return rec.ClientName, rec.ClientVersion
		}
	}
	if r.Method != http.MethodPost || r.Body == nil {
		return "", ""
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, maxPeekBytes))
	if err != nil {
		return "", ""
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			ClientInfo mcp.Implementation `json:"clientInfo"`
		} `json:"params"`
	}
	if json.Unmarshal(head, &msg) != nil || msg.Method != string(mcp.MethodInitialize) {
		return "", ""
	}
	return truncate(msg.Params.ClientInfo.Name, maxClientNameBytes), truncate(msg.Params.ClientInfo.Version, maxClientVersionBytes)
}
