package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
)

func TestAReminderOrScheduledTimeIsExactlyOneOfAtAndInMinutesAndLiesAhead(t *testing.T) {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args    reminderArgs
		want    time.Time
		refusal string
	}{
		{reminderArgs{InMinutes: 30}, now.Add(30 * time.Minute), ""},
		{reminderArgs{At: "2025-03-11T09:00:00Z"}, time.Date(2025, 3, 11, 9, 0, 0, 0, time.UTC), ""},
		{reminderArgs{At: "2025-03-11T09:00"}, time.Date(2025, 3, 11, 8, 0, 0, 0, time.UTC), ""},
		{reminderArgs{}, time.Time{}, "exactly one"},
		{reminderArgs{At: "2025-03-11T09:00:00Z", InMinutes: 5}, time.Time{}, "exactly one"},
		{reminderArgs{At: "tomorrow"}, time.Time{}, "not a time"},
		{reminderArgs{At: "2025-03-10T11:00:00Z"}, time.Time{}, "has passed"},
		{reminderArgs{InMinutes: -5}, time.Time{}, "has passed"},
		{reminderArgs{At: "2027-03-10T11:00:00Z"}, time.Time{}, "more than a year"},
	}
	for _, c := range cases {
		got, err := timeAhead(c.args.At, c.args.InMinutes, now, paris)
		if c.refusal != "" {
			if err == nil || !strings.Contains(err.Error(), c.refusal) {
				t.Errorf("%+v: %v, want a refusal saying %q", c.args, err, c.refusal)
			}
			continue
		}
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%+v: %v %v, want %v", c.args, got, err, c.want)
		}
	}
}

func TestAWriteDefinedWholeInItsOwnFileIsOfferedAfterTheFamiliesWrites(t *testing.T) {
	before := besideTheirKinds
	t.Cleanup(func() { besideTheirKinds = before })
	families := writeTools(Deps{})
	confirmedWrite(func(Deps) catalogue.Tool {
		return catalogue.Tool{Name: "archive_channel", Effect: catalogue.ChangesMattermost}
	})
	got := writeTools(Deps{})
	if len(got) != len(families)+1 || got[len(got)-1].Name != "archive_channel" {
		t.Fatalf("with one write beside its kind the writes are %d, the last %q", len(got), got[len(got)-1].Name)
	}
}
