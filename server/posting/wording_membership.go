package posting

// join_channel and leave_channel: the person's own membership, which the
// channel's members see as "joined the channel" / "left the channel".
var joinWording = Wording{
	Heading: func(p Plan) Line { return say("Join the public channel " + p.Dest.PlaceText()) },
	Lede:    "It asks to add you to this channel. Mattermost posts that you joined, for everyone in it to see. Nothing changes until you accept.",
	Box:     "Join it", Accept: "Accept and join",
	Facts:        channelFacts,
	NotesHeading: "Who sees it",
	Done:         func(place string) string { return "You joined" + orChannel(place) + "." },
	Declined:     "Declined: you did not join.",
}

var leaveWording = Wording{
	Heading: func(p Plan) Line {
		return say("Leave the " + channelSpec(p).Kind() + " " + p.Dest.PlaceText())
	},
	Lede: "It asks to take you out of this channel. Mattermost posts that you left, for everyone in it to see. Nothing changes until you accept.",
	Box:  "Leave it", Accept: "Accept and leave",
	Facts:        channelFacts,
	NotesHeading: "What it means",
	Done:         func(place string) string { return "You left" + orChannel(place) + "." },
	Declined:     "Declined: you are still in the channel.",
}

func channelFacts(p Plan) []Fact {
	ch := channelSpec(p)
	fs := []Fact{{Label: "Channel", Value: p.Dest.Where}, {Label: "Kind", Value: ch.Kind()}}
	if ch.Purpose != "" {
		fs = append(fs, Fact{Label: "Purpose", Value: ch.Purpose})
	}
	return fs
}

func channelSpec(p Plan) ChannelSpec {
	if p.Channel == nil {
		return ChannelSpec{}
	}
	return *p.Channel
}

// orChannel is " place" or " the channel".
func orChannel(place string) string {
	if place == "" {
		return " the channel"
	}
	return " " + place
}
