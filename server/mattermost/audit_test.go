package mattermost

import (
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
	"github.com/stretchr/testify/mock"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
)

func TestOnlyMattermost1010AndLaterTakeAuditRecords(t *testing.T) {
	for v, want := range map[string]bool{"9.11.6": false, "10.9.3": false, "10.10.0": true, "10.11.1": true, "11.4.0": true, "": false, "x.y": false} {
		if got := TakesAuditRecords(v); got != want {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}

func TestAnAuditEntryReachesMattermostsAuditLogOnlyWhereItIsOffered(t *testing.T) {
	ev := audit.Event{At: time.UnixMilli(1700000000000), Kind: audit.KindWrite, UserID: alice.Id, ClientName: "claude-code", ClientVersion: "2.1",
		Tool: "create_post", Outcome: audit.OutcomeAccepted, Targets: map[string]string{"channel_id": chanC}}
	for version, calls := range map[string]int{"11.4.0": 2, "9.11.6": 0} {
		api := &plugintest.API{}
		api.On("GetServerVersion").Return(version)
		api.On("LogInfo", mock.Anything, mock.Anything, mock.Anything).Return()
		var got []*model.AuditRecord
		api.On("LogAuditRec", mock.Anything).Run(func(args mock.Arguments) { got = append(got, args.Get(0).(*model.AuditRecord)) }).Return()
		g := NewGateway(api, nil)
		g.LogAudit(ev)
		g.LogAudit(ev)
		if len(got) != calls {
			t.Fatalf("%s: %d records, want %d", version, len(got), calls)
		}
		api.AssertNumberOfCalls(t, "GetServerVersion", 1)
		if calls == 0 {
			continue
		}
		r := got[0]
		if r.EventName != "mcp_write" || r.Status != model.AuditStatusSuccess || r.Actor.UserId != alice.Id || r.Actor.Client != "claude-code 2.1" ||
			r.EventData.Parameters["tool"] != "create_post" || r.EventData.Parameters["client_version"] != "2.1" {
			t.Fatalf("record %+v", r)
		}
	}
}
