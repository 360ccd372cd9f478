package posting

// create_channel: a new channel of one of the person's teams, with the
// people it starts with.
var createChannelWording = Wording{
	Heading: func(p Plan) Line {
		ch := channelSpec(p)
		rest := " in " + ch.Team
		if len(p.Members) > 0 {
			rest += " with " + usernames(p.Members)
		}
		return Line{{Text: "Create the " + ch.Kind() + " "}, {Text: ch.DisplayName, AI: true}, {Text: rest}}
	},
	Lede: "It asks to create this channel as you, with you as its admin. Nothing is created until you accept.",
	Box:  "Create it", Accept: "Accept and create",
	Facts: func(p Plan) []Fact {
		ch := channelSpec(p)
		who := "anyone in " + ch.Team + " can find and join it"
		if ch.Private {
			who = "only its members see it; others join only when a member adds them"
		}
		fs := []Fact{{Label: "Team", Value: ch.Team}, {Label: "Name", Value: ch.DisplayName, AI: true},
			{Label: "Address", Value: "~" + ch.Name, AI: true}, {Label: "Kind", Value: ch.Kind() + ": " + who}}
		if ch.Purpose != "" {
			fs = append(fs, Fact{Label: "Purpose", Value: ch.Purpose, AI: true})
		}
		if ch.Header != "" {
			fs = append(fs, Fact{Label: "Header", Value: ch.Header, AI: true})
		}
		members := "only you"
		if len(p.Members) > 0 {
			members = "you, " + usernames(p.Members)
		}
		return append(fs, Fact{Label: "Members", Value: members})
	},
	NotesHeading: "Who is notified",
	// The channel's name is the model's, so the sentence does not repeat it.
	Done:     func(string) string { return "The channel was created." },
	Declined: "Declined: no channel was created.",
}

// add_channel_members: people added to a channel the person is in.
var addMembersWording = Wording{
	Heading: func(p Plan) Line { return say("Add " + usernames(p.Members) + " to " + p.Dest.PlaceText()) },
	Lede:    "It asks to add these people to the channel as you. Nothing changes until you accept.",
	Box:     "Add them", Accept: "Accept and add",
	Facts: func(p Plan) []Fact {
		return []Fact{{Label: "Channel", Value: p.Dest.Where}, {Label: "Kind", Value: channelSpec(p).Kind()}, {Label: "People", Value: usernames(p.Members)}}
	},
	NotesHeading: "Who is notified",
	Done:         func(place string) string { return "The people were added" + orTo(place) + "." },
	Declined:     "Declined: nobody was added.",
}

func orTo(place string) string {
	if place == "" {
		return ""
	}
	return " to " + place
}
