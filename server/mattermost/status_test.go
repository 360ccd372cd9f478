package mattermost

import (
	"errors"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
)

func TestWithCustomStatusesOffNoCustomStatusIsSetOrClearedAsMattermostsAPIRefusesThem(t *testing.T) {
	w := newWorld(t)
	w.cfg.TeamSettings.EnableCustomUserStatuses = model.NewPointer(false)
	*w.cfg = *overRPC(t, w.cfg)
	// The mock has no UpdateUserCustomStatus or RemoveUserCustomStatus: a
	// call to either fails the test.
	if err := w.as(alice).SetCustomStatus(&model.CustomStatus{Emoji: "palm_tree", Text: "On holiday"}); !errors.Is(err, ErrCustomStatusesOff) {
		t.Errorf("set with custom statuses off: %v", err)
	}
	if err := w.as(alice).SetCustomStatus(nil); !errors.Is(err, ErrCustomStatusesOff) || !errors.Is(err, ErrTurnedOff) {
		t.Errorf("clear with custom statuses off: %v", err)
	}
}

func TestWithCustomStatusesOnTheCustomStatusIsSet(t *testing.T) {
	w := newWorld(t)
	cs := &model.CustomStatus{Emoji: "palm_tree", Text: "On holiday"}
	w.api.On("UpdateUserCustomStatus", alice.Id, cs).Return(nil).Once()
	if err := w.as(alice).SetCustomStatus(cs); err != nil {
		t.Fatal(err)
	}
	w.api.AssertCalled(t, "UpdateUserCustomStatus", alice.Id, cs)
}
