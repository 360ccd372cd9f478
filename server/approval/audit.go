package approval

// Every write through the approval path is recorded in the audit trail at
// each step: asked, then accepted, declined, withdrawn or expired, and after
// an accepted write is carried out, done or failed. The store records its
// own transitions, so no path that changes a record can forget to; the
// record keeps the tool, the client and the ids from the moment it was
// asked, so a step taken later, on the page or by the expiry job, carries
// them too. Only ids: never the message or the files' names.

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// Origin is what a write's audit entries say of where it came from: the
// tool and the MCP client of the call that asked.
type Origin struct {
	// Session is the MCP session that asked, held in use while the write
	// waits ("" for a sessionless request).
	Session       string
	Tool          string
	ClientName    string
	ClientVersion string
	// Task is the task that follows the write ("" for a call the client
	// holds itself).
	Task string
}

// OriginOf is the origin of the call being handled.
func OriginOf(ctx context.Context) Origin {
	client := transport.Client(ctx)
	o := Origin{Session: transport.SessionID(ctx), Tool: transport.CallOf(ctx).Tool, ClientName: client.Name, ClientVersion: client.Version}
	if task := transport.TaskOf(ctx); task != nil {
		o.Task = task.ID
	}
	return o
}

// maxAuditUsers bounds the people a write's entry names: a group message
// has at most 7 others, a channel's new members are counted past this.
const maxAuditUsers = 8

// touching is a payload that touches ids beyond the plan's own: a channel,
// its team, the people it brings in.
type touching interface {
	touches() (channelID, teamID string, userIDs []string)
}

// writeTargets are the ids a plan touches: where it goes, the post it is
// about, the people it brings in.
func writeTargets(p posting.Plan) map[string]string {
	t := map[string]string{}
	set := func(k, v string) {
		if v != "" {
			t[k] = v
		}
	}
	set("channel_id", p.Dest.ChannelID)
	set("root_id", p.Dest.RootID)
	set("post_id", p.PostID)
	users := append([]string(nil), p.Dest.UserIDs...)
	if own, ok := writeOf(p.Action).Payload(p).(touching); ok {
		channelID, teamID, people := own.touches()
		set("channel_id", channelID)
		set("team_id", teamID)
		users = append(users, people...)
	}
	for i, id := range users {
		if i == maxAuditUsers {
			set("more_users", strconv.Itoa(len(users)-i))
			break
		}
		set(fmt.Sprintf("user_id_%d", i+1), id)
	}
	return t
}

// recordStep records one step of rec's life.
func (s *Store) recordStep(rec Record, outcome string) {
	if s.Audit == nil {
		return
	}
	targets := make(map[string]string, len(rec.Targets)+3)
	for k, v := range rec.Targets {
		targets[k] = v
	}
	targets["write_id"] = rec.ID
	if rec.PostID != "" {
		targets["post_id"] = rec.PostID
	}
	if rec.ChannelID != "" && targets["channel_id"] == "" {
		targets["channel_id"] = rec.ChannelID
	}
	s.Audit.Record(audit.Event{At: s.Now(), Kind: audit.KindWrite, UserID: rec.UserID, ClientName: rec.ClientName, ClientVersion: rec.ClientVersion,
		Tool: rec.Tool, Targets: targets, Outcome: outcome, Reason: auditReason(rec)})
}

// auditReason is a short code for why a write ended as it did: whether a
// failure was partway (the reason's own words may quote what the model
// wrote, so they stay out).
func auditReason(rec Record) string {
	if rec.State != StateFailed {
		return ""
	}
	if partway, _ := failure(rec.Outcome); partway {
		return "failed_partway"
	}
	return "failed_before_sending"
}

// recordDoneAtOnce records a write the admin leaves to the client's own
// approval, carried out without a record of its own.
func (a *Approvals) recordDoneAtOnce(ctx context.Context, userID string, plan posting.Plan, done Executed, err error) {
	if a.opts.Audit == nil {
		return
	}
	o := OriginOf(ctx)
	targets := writeTargets(plan)
	if done.PostID != "" {
		targets["post_id"] = done.PostID
	}
	if done.ChannelID != "" && targets["channel_id"] == "" {
		targets["channel_id"] = done.ChannelID
	}
	outcome, reason := audit.OutcomeDone, "client_approval"
	if err != nil {
		outcome = audit.OutcomeFailed
	}
	a.opts.Audit.Record(audit.Event{At: a.opts.Now(), Kind: audit.KindWrite, UserID: userID, ClientName: o.ClientName, ClientVersion: o.ClientVersion,
		Tool: o.Tool, Targets: targets, Outcome: outcome, Reason: reason})
}
