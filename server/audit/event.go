// Package audit is the record of what was done through MCP: every confirmed
// write and its outcome, every change to a person's own view, every
// presigned URL and upload handle, and every refused sign-in. An entry says
// when, who, which client, which tool, the ids it touched and the outcome;
// never message text or file contents.
package audit

import "time"

// Kind is what an entry records.
type Kind string

const (
	// KindWrite is a confirmed write (post, edit, reaction, channel or
	// member change, status): asked and then how it ended.
	KindWrite Kind = "write"
	// KindOwnView is a change to what only the person sees (drafts, saved
	// posts, followed threads, read marks, reminders).
	KindOwnView Kind = "own_view"
	// KindPresignedURL is a presigned download or upload URL handed out.
	KindPresignedURL Kind = "presigned_url"
	// KindUploadHandle is an upload handle handed out.
	KindUploadHandle Kind = "upload_handle"
	// KindSignIn is a refused sign-in or request at the MCP endpoint (not
	// allowed to connect, going too fast, a deactivated account).
	KindSignIn Kind = "sign_in"
	// KindFileRequest is a file asked of the person (request_file) and how
	// it ended: given, refused, withdrawn.
	KindFileRequest Kind = "file_request"
	// KindChatFile is a file a host handed over by link (ChatGPT's file
	// params), fetched into the person's workspace: the host it came from,
	// its size and how the fetch ended; never the link's query or the bytes.
	KindChatFile Kind = "chat_file"
	// KindConnection is a client connected or disconnected by the person,
	// or a personal access token made for MCP.
	KindConnection Kind = "connection"
)

// Outcomes of an entry.
const (
	OutcomeAsked     = "asked"
	OutcomeAccepted  = "accepted"
	OutcomeDeclined  = "declined"
	OutcomeExpired   = "expired"
	OutcomeFailed    = "failed"
	OutcomeWithdrawn = "withdrawn"
	OutcomeDone      = "done"
	OutcomeRefused   = "refused"
	OutcomeIssued    = "issued"
)

// Event is one entry of the audit trail. Every field is an id, a name or a
// short code: never message text or file contents.
type Event struct {
	At            time.Time `json:"at"`
	Kind          Kind      `json:"kind"`
	UserID        string    `json:"user_id"`
	ClientName    string    `json:"client_name,omitempty"`
	ClientVersion string    `json:"client_version,omitempty"`
	Tool          string    `json:"tool,omitempty"`
	// Targets are the ids the event touched, by what they are ("channel_id",
	// "post_id", "file_id", "write_id"...).
	Targets map[string]string `json:"targets,omitempty"`
	Outcome string            `json:"outcome"`
	// Reason is a short code saying why, for refusals and failures
	// ("not_allowed", "guest", "rate_limited"...).
	Reason string `json:"reason,omitempty"`
}

// Recorder takes events. Record never blocks the caller on storage for
// long and never fails the action it records: an entry that cannot be
// stored is logged.
type Recorder interface {
	Record(Event)
}

// Nop records nothing; for tests and for a plugin still starting.
type Nop struct{}

// Record drops the event.
func (Nop) Record(Event) {}
