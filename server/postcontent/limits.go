package postcontent

// Bounds of what one post's content adds to an answer. A page holds up to
// 100 posts, so each part is cut well before it could crowd out the rest;
// every cut is said beside the part it cut.
const (
	// maxCards is how many message attachments of one post are shown:
	// integrations rarely post more than three, and ten cards of full
	// text are already a page on their own.
	maxCards = 10
	// maxCardTextRunes cuts an attachment's text (and its pretext) like a
	// message is cut, at a quarter of a message: an alert's body, not a log.
	maxCardTextRunes = 1000
	// maxLineRunes cuts the one-line parts (title, author, footer, a
	// field's title and value, a link, a label): longer is not a label.
	maxLineRunes = 300
	// maxFields is how many fields of one attachment are listed: alert
	// cards carry a handful; twenty is a table, not a card.
	maxFields = 20
	// maxActions is how many buttons and menus of one attachment are named.
	maxActions = 10
	// maxPreviewRunes cuts a link preview's description, as the webapp
	// shows only its first lines.
	maxPreviewRunes = 500
	// maxAckNames is how many people who acknowledged a post are named;
	// the rest are counted.
	maxAckNames = 10
)
