package posting

import "strings"

// delete_post: one of the person's own posts, with the replies and files
// Mattermost deletes with it.
var deleteWording = Wording{
	Heading: func(p Plan) Line {
		return say("Delete your post in " + p.Dest.PlaceText() + goesWith(p.Target, " with "))
	},
	Lede:        "It asks to delete your post for everyone in the channel. Nothing changes until you accept; a deleted post cannot be brought back.",
	Box:         "Delete it",
	Accept:      "Accept and delete",
	PostCaption: "The post that is deleted",
	Facts: func(p Plan) []Fact {
		t := target(p)
		replies := "none"
		if t.Replies > 0 {
			replies = plural(t.Replies, "reply, by anyone, is", "replies, by anyone, are") + " deleted with it"
		}
		files := "none"
		if len(t.Files) > 0 {
			files = plural(len(t.Files), "file", "files") + " deleted with it: " + strings.Join(t.Files, ", ")
		}
		return []Fact{{Label: "Where", Value: p.Dest.Where}, {Label: "Replies", Value: replies}, {Label: "Files", Value: files}}
	},
	NotesHeading: "Who it affects",
	Done:         func(place string) string { return "Your post" + in(place) + " was deleted." },
	Declined:     "Declined: your post stays.",
}

// goesWith is what is deleted with a post: " with its 3 replies and 1 file".
func goesWith(t *PostTarget, lead string) string {
	if t == nil {
		return ""
	}
	var parts []string
	if t.Replies > 0 {
		parts = append(parts, plural(t.Replies, "reply", "replies"))
	}
	if len(t.Files) > 0 {
		parts = append(parts, plural(len(t.Files), "file", "files"))
	}
	if len(parts) == 0 {
		return ""
	}
	return lead + "its " + join(parts)
}

func target(p Plan) PostTarget {
	if p.Target == nil {
		return PostTarget{}
	}
	return *p.Target
}
