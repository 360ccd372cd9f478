package postcontent

import (
	"fmt"

	"github.com/mattermost/mattermost/server/public/model"
)

// SystemMessage is a system post in the words Mattermost shows it, built
// from the usernames and old and new values its props carry (the sentences
// of Mattermost's i18n/en.json, with @ before names as the webapp writes
// them). A type not listed here, or a post whose props lack what the
// sentence needs, reads as the message Mattermost stored for it. ok is
// false for a post that is not a system message.
func SystemMessage(p *model.Post) (msg string, ok bool) {
	if !IsSystem(p) {
		return "", false
	}
	prop := func(key string) string {
		s, _ := p.GetProp(key).(string)
		return s
	}
	at := func(key string) string {
		if s := prop(key); s != "" {
			return "@" + s
		}
		return ""
	}
	user, added, removed := at("username"), at("addedUsername"), at("removedUsername")
	need := func(s string, names ...string) (string, bool) {
		for _, n := range names {
			if n == "" {
				return p.Message, true
			}
		}
		return s, true
	}
	switch p.Type {
	case model.PostTypeJoinChannel:
		return need(user+" joined the channel.", user)
	case model.PostTypeGuestJoinChannel:
		return need(user+" joined the channel as a guest.", user)
	case model.PostTypeLeaveChannel:
		return need(user+" left the channel.", user)
	case model.PostTypeJoinTeam:
		return need(user+" joined the team.", user)
	case model.PostTypeLeaveTeam:
		return need(user+" left the team.", user)
	case model.PostTypeAddToChannel:
		return need(fmt.Sprintf("%s added to the channel by %s.", added, user), added, user)
	case model.PostTypeAddGuestToChannel:
		return need(fmt.Sprintf("%s added to the channel as a guest by %s.", added, user), added, user)
	case model.PostTypeRemoveFromChannel:
		return need(removed+" removed from the channel.", removed)
	case model.PostTypeAddToTeam:
		return need(fmt.Sprintf("%s added to the team by %s.", added, user), added, user)
	case model.PostTypeRemoveFromTeam:
		return need(user+" removed from the team.", user)
	case model.PostTypeHeaderChange:
		return need(changed(user, "header", prop("old_header"), prop("new_header")), user)
	case model.PostTypePurposeChange:
		return need(changed(user, "purpose", prop("old_purpose"), prop("new_purpose")), user)
	case model.PostTypeDisplaynameChange:
		return need(fmt.Sprintf("%s updated the channel display name from: %s to: %s", user, prop("old_displayname"), prop("new_displayname")), user)
	case model.PostTypeChannelDeleted:
		return need(user+" archived the channel.", user)
	case model.PostTypeChannelRestored:
		return need(user+" unarchived the channel.", user)
	}
	return p.Message, true
}

// changed is Mattermost's sentence for a header or purpose change.
func changed(user, what, old, new string) string {
	switch {
	case new == "":
		return fmt.Sprintf("%s removed the channel %s (was: %s)", user, what, old)
	case old == "":
		return fmt.Sprintf("%s updated the channel %s to: %s", user, what, new)
	}
	return fmt.Sprintf("%s updated the channel %s from: %s to: %s", user, what, old, new)
}
