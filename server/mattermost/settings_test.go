package mattermost

import (
	"bytes"
	"encoding/gob"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
)

// overRPC is cfg as a plugin receives it: gob-encoded by the server and
// decoded in the plugin, as the plugin RPC carries GetConfig's answer.
func overRPC(t *testing.T, cfg *model.Config) *model.Config {
	t.Helper()
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(cfg); err != nil {
		t.Fatal(err)
	}
	var got model.Config
	if err := gob.NewDecoder(&buf).Decode(&got); err != nil {
		t.Fatal(err)
	}
	return &got
}

func TestABooleanSettingReadsAsTheAdminSetItAfterCrossingThePluginRPC(t *testing.T) {
	for _, c := range []struct {
		name string
		set  *bool
		want bool
	}{
		{"off", model.NewPointer(false), false},
		{"on", model.NewPointer(true), true},
		{"unset (a setting this server version does not have)", nil, false},
	} {
		cfg := &model.Config{}
		cfg.TeamSettings.EnableCustomUserStatuses = c.set
		got := overRPC(t, cfg).TeamSettings.EnableCustomUserStatuses
		if Setting(got) != c.want {
			t.Errorf("%s: arrived as %v, read as %v, want %v", c.name, got, Setting(got), c.want)
		}
	}
}

// The reason the helper exists: a plain nil check reads the admin's off as
// on once the configuration has crossed the RPC.
func TestTheRPCDropsAPointerToFalse(t *testing.T) {
	cfg := &model.Config{}
	cfg.ServiceSettings.AllowSyncedDrafts = model.NewPointer(false)
	if got := overRPC(t, cfg).ServiceSettings.AllowSyncedDrafts; got != nil {
		t.Fatalf("gob kept a pointer to false (%v): Setting's reason is gone, revisit it", *got)
	}
}

func TestEverySettingTheCallerReadsIsOffWhenTheAdminTurnedItOffOrTheServerLacksIt(t *testing.T) {
	settings := []struct {
		name string
		at   func(*model.Config) **bool
		read func(*Caller) bool
	}{
		{"EnableCustomUserStatuses", func(c *model.Config) **bool { return &c.TeamSettings.EnableCustomUserStatuses }, (*Caller).CustomStatusesOn},
		{"AllowSyncedDrafts", func(c *model.Config) **bool { return &c.ServiceSettings.AllowSyncedDrafts }, (*Caller).DraftsSynced},
		{"ExperimentalViewArchivedChannels", func(c *model.Config) **bool { return &c.TeamSettings.ExperimentalViewArchivedChannels }, (*Caller).ViewArchivedChannels},
		{"EnableFileAttachments", func(c *model.Config) **bool { return &c.FileSettings.EnableFileAttachments }, (*Caller).AttachmentsEnabled},
		{"EnableCustomEmoji", func(c *model.Config) **bool { return &c.ServiceSettings.EnableCustomEmoji }, (*Caller).CustomEmojiOn},
	}
	for _, s := range settings {
		for _, v := range []struct {
			name string
			set  *bool
			want bool
		}{{"off", model.NewPointer(false), false}, {"on", model.NewPointer(true), true}, {"unset", nil, false}} {
			w := newWorld(t)
			*s.at(w.cfg) = v.set
			*w.cfg = *overRPC(t, w.cfg)
			if got := s.read(w.as(alice)); got != v.want {
				t.Errorf("%s %s: read %v, want %v", s.name, v.name, got, v.want)
			}
		}
	}
}

func TestWithCustomStatusesOffNobodysCustomStatusIsShown(t *testing.T) {
	for _, on := range []bool{false, true} {
		w := newWorld(t)
		w.cfg.TeamSettings.EnableCustomUserStatuses = model.NewPointer(on)
		*w.cfg = *overRPC(t, w.cfg)
		away := bob.DeepCopy()
		away.SetCustomStatus(&model.CustomStatus{Emoji: "palm_tree", Text: "On holiday in Lisbon"})
		w.api.On("GetUser", away.Id).Unset()
		w.api.On("GetUser", away.Id).Return(away, nil)
		w.api.On("GetUserStatusesByIds", []string{away.Id}).Return([]*model.Status{{UserId: away.Id, Status: model.StatusOnline}}, nil)
		found, _, err := w.as(alice).Presences([]string{away.Id})
		if err != nil || len(found) != 1 {
			t.Fatalf("custom statuses %v: %v %v", on, found, err)
		}
		if shown := found[0].Custom != nil; shown != on {
			t.Errorf("custom statuses %v: bob's custom status shown %v", on, shown)
		}
	}
}
