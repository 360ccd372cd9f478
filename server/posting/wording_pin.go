package posting

// pin_post and unpin_post: a post's pin, which everyone in the channel sees
// in its pinned messages.
var pinWording = Wording{
	Heading: func(p Plan) Line {
		return say("Pin " + byWhom(p) + " in " + p.Dest.PlaceText() + " for everyone in it")
	},
	Lede: "It asks to pin this post: everyone in the channel sees it in the channel's pinned messages. Nothing changes until you accept.",
	Box:  "Pin it", Accept: "Accept and pin",
	PostCaption:  "The post that is pinned",
	Facts:        pinFacts,
	NotesHeading: "Who sees it",
	Done:         func(place string) string { return "The post" + in(place) + " was pinned." },
	Declined:     "Declined: the post was not pinned.",
}

var unpinWording = Wording{
	Heading: func(p Plan) Line {
		return say("Unpin " + byWhom(p) + " in " + p.Dest.PlaceText() + " for everyone in it")
	},
	Lede: "It asks to unpin this post: it leaves the channel's pinned messages for everyone. Nothing changes until you accept.",
	Box:  "Unpin it", Accept: "Accept and unpin",
	PostCaption:  "The post that is unpinned",
	Facts:        pinFacts,
	NotesHeading: "Who sees it",
	Done:         func(place string) string { return "The post" + in(place) + " was unpinned." },
	Declined:     "Declined: the post stays pinned.",
}

func pinFacts(p Plan) []Fact {
	return []Fact{{Label: "Where", Value: p.Dest.Where}, {Label: "Posted by", Value: author(p)}}
}

// byWhom is "your post" or "a post by @bob".
func byWhom(p Plan) string {
	if a := author(p); a != "you" {
		return "a post by " + a
	}
	return "your post"
}

func author(p Plan) string {
	t := target(p)
	if t.AuthorID == p.CallerID || t.Author == "" {
		return "you"
	}
	return "@" + t.Author
}
