package posting

import "time"

// schedule_post: a post Mattermost sends as the person at a later time,
// which they can change or delete in their Scheduled posts until then.
var scheduleWording = Wording{
	Heading: func(p Plan) Line {
		return say("Schedule a post in " + p.Dest.PlaceText() + " for " + When(p.SendAt, p.SendZone, time.Now()))
	},
	Lede: "It asks to schedule this post as you: Mattermost sends it at that time, and until then you can change or delete it " +
		"in your scheduled posts. Nothing is scheduled until you accept.",
	Box: "Schedule it", Accept: "Accept and schedule",
	PostCaption: "Written by the AI, sent at that time",
	Facts: func(p Plan) []Fact {
		return []Fact{{Label: "Where", Value: p.Dest.Where}, {Label: "Sent at", Value: When(p.SendAt, p.SendZone, time.Now())}}
	},
	NotesHeading: "Who is notified when it is sent",
	Done:         func(place string) string { return "The post was scheduled" + in(place) + "." },
	Declined:     "Declined: nothing was scheduled.",
}
