package mattermost

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/stretchr/testify/mock"
)

// conversations sets up whether alice may start direct and group messages
// and which conversations exist already.
func (w *world) conversations(mayDirect, mayGroup bool, existing ...*model.Channel) {
	w.api.On("HasPermissionTo", alice.Id, model.PermissionCreateDirectChannel).Return(mayDirect)
	w.api.On("HasPermissionTo", alice.Id, model.PermissionCreateGroupChannel).Return(mayGroup)
	for _, ch := range existing {
		w.api.On("GetChannelByName", "", ch.Name, false).Return(ch, nil)
	}
	w.api.On("GetChannelByName", "", mock.Anything, false).Return(nil, model.NewAppError("GetChannelByName", "app.channel.get_by_name.missing.app_error", nil, "", http.StatusNotFound))
}

func TestWithoutCreateDirectChannelNoNewDirectMessageIsOpenedAsMattermostsAPIRefusesIt(t *testing.T) {
	w := newWorld(t)
	w.conversations(false, false)
	// The mock has no GetDirectChannel: opening one fails the test.
	if _, err := w.as(alice).DirectChannelWith(bob.Id); !errors.Is(err, ErrCannotStartConversation) {
		t.Fatalf("a new direct message without create_direct_channel: %v", err)
	}
	if err := w.as(alice).MayMessage([]string{bob.Id}); !errors.Is(err, ErrCannotStartConversation) {
		t.Fatalf("MayMessage: %v", err)
	}
}

func TestWithoutCreateGroupChannelNoNewGroupMessageIsOpened(t *testing.T) {
	w := newWorld(t)
	w.conversations(true, false)
	if _, err := w.as(alice).GroupChannelWith([]string{bob.Id, carol.Id}); !errors.Is(err, ErrCannotStartConversation) {
		t.Fatalf("a new group message without create_group_channel: %v", err)
	}
}

func TestAnExistingDirectMessageIsWrittenInWithoutThePermissionToStartOne(t *testing.T) {
	w := newWorld(t)
	dm := &model.Channel{Id: model.NewId(), Name: model.GetDMNameFromIds(alice.Id, bob.Id), Type: model.ChannelTypeDirect}
	w.conversations(false, false, dm)
	ch, err := w.as(alice).DirectChannelWith(bob.Id)
	if err != nil || ch.Id != dm.Id {
		t.Fatalf("the existing direct message: %v %v", ch, err)
	}
}

func TestWithTheirPermissionsANewDirectAndGroupMessageAreOpened(t *testing.T) {
	w := newWorld(t)
	w.conversations(true, true)
	dm := &model.Channel{Id: model.NewId(), Type: model.ChannelTypeDirect}
	gm := &model.Channel{Id: model.NewId(), Type: model.ChannelTypeGroup}
	w.api.On("GetDirectChannel", alice.Id, bob.Id).Return(dm, nil).Once()
	w.api.On("GetGroupChannel", []string{alice.Id, bob.Id, carol.Id}).Return(gm, nil).Once()
	if ch, err := w.as(alice).DirectChannelWith(bob.Id); err != nil || ch.Id != dm.Id {
		t.Fatalf("direct: %v %v", ch, err)
	}
	if ch, err := w.as(alice).GroupChannelWith([]string{bob.Id, carol.Id}); err != nil || ch.Id != gm.Id {
		t.Fatalf("group: %v %v", ch, err)
	}
}
