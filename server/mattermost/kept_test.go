package mattermost

import (
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
)

func TestAPersonsOwnAccountIsReadOnceByANodeForAFewSeconds(t *testing.T) {
	api := &plugintest.API{}
	api.On("GetUser", aliceID).Return(&model.User{Id: aliceID, Username: "alice", Password: "hash", Locale: "en"}, nil).Once()
	gw := NewGateway(api, nil)
	for range 3 { // three calls, each its own Caller
		me, err := gw.As(aliceID).Me()
		if err != nil || me.Username != "alice" {
			t.Fatalf("me %+v, %v", me, err)
		}
		if me.Password != "" {
			t.Fatal("the account's password hash reached a tool")
		}
		me.Username = "changed by one reader" // every reader gets its own copy
	}
	api.AssertNumberOfCalls(t, "GetUser", 1)
}

func TestTheCheckThatAPersonIsActiveAlsoKeepsTheirAccountForTheirCalls(t *testing.T) {
	api := &plugintest.API{}
	api.On("GetUser", aliceID).Return(&model.User{Id: aliceID, Username: "alice"}, nil).Once()
	gw := NewGateway(api, nil)
	if active, err := gw.UserActive(aliceID); err != nil || !active {
		t.Fatalf("active %v, %v", active, err)
	}
	if me, err := gw.As(aliceID).Me(); err != nil || me.Username != "alice" {
		t.Fatalf("me %+v, %v", me, err)
	}
	api.AssertNumberOfCalls(t, "GetUser", 1)
}

func TestPostAuthorsAreReadOnceByANodeForAFewSecondsAndStillShownAsEachCallerMaySeeThem(t *testing.T) {
	w := newWorld(t)
	w.api.On("GetUsersByIds", []string{alice.Id, carol.Id}).Return([]*model.User{alice.DeepCopy(), carol.DeepCopy()}, nil).Once()
	w.api.On("GetUsersByIds", []string{bob.Id}).Return([]*model.User{bob.DeepCopy()}, nil).Once()
	gw := NewGateway(w.api, nil)
	all, err := gw.As(bob.Id).Authors([]string{alice.Id, carol.Id})
	if err != nil || len(all) != 2 {
		t.Fatalf("bob: %+v, %v", all, err)
	}
	all[alice.Id].FirstName = "changed by one reader"
	some, err := gw.As(gail.Id).Authors([]string{alice.Id, carol.Id, bob.Id})
	if err != nil || len(some) != 1 || some[alice.Id] == nil || some[alice.Id].FirstName != "Alice" {
		t.Fatalf("a guest is shown only the authors they share a channel with, as read: %+v, %v", some, err)
	}
	w.api.AssertNumberOfCalls(t, "GetUsersByIds", 2)
}

func TestTheZoneOnThePersonsOwnPagesIsTheOneTheyJustChoseWhileToolsMayShowTheKeptOne(t *testing.T) {
	api := &plugintest.API{}
	utc := &model.User{Id: aliceID, Timezone: model.StringMap{"useAutomaticTimezone": "false", "manualTimezone": ""}}
	tokyo := &model.User{Id: aliceID, Timezone: model.StringMap{"useAutomaticTimezone": "false", "manualTimezone": "Asia/Tokyo"}}
	api.On("GetUser", aliceID).Return(utc, nil).Once()
	api.On("GetUser", aliceID).Return(tokyo, nil)
	gw := NewGateway(api, nil)
	if loc := gw.As(aliceID).Location(); loc != time.UTC {
		t.Fatalf("before the change: %v", loc)
	}
	// The person sets Asia/Tokyo now: a tool within accountFor shows the
	// zone this node kept, their own page the one they chose.
	if loc := gw.As(aliceID).Location(); loc != time.UTC {
		t.Fatalf("a tool within accountFor: %v, want the kept UTC", loc)
	}
	if loc := gw.As(aliceID).LocationNow(); loc.String() != "Asia/Tokyo" {
		t.Fatalf("the person's own page shows %v, want Asia/Tokyo", loc)
	}
}
