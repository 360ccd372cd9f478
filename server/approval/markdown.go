package approval

import (
	"html"
	"html/template"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mattermost/mattermost/server/public/shared/markdown"
)

// RenderMarkdown renders a message the way Mattermost shows a post, as safe
// HTML: paragraphs (a single newline is a line break, as in Mattermost),
// headings, **strong**, *emphasis*, ~~strikethrough~~, code spans and
// blocks, lists, block quotes and links. It is built over Mattermost's own
// parser (which has no emphasis or headings, so those are added here).
//
// Every piece of the message's text is escaped: raw HTML in a message is
// shown as text, never passed through. A link is a link only when its
// scheme is http, https or mailto (or it has none); images are shown as
// links, so the page loads nothing from elsewhere. Emphasis does not span a
// code span or a link (a simplification of CommonMark's rules).
func RenderMarkdown(src string) template.HTML {
	doc, defs := markdown.Parse(src)
	r := mdRenderer{src: src, defs: defs}
	r.block(doc, false)
	// Built from escaped text and fixed tags only.
	return template.HTML(r.b.String())
}

type mdRenderer struct {
	src  string
	defs []*markdown.ReferenceDefinition
	b    strings.Builder
}

var headingRE = regexp.MustCompile(`^(#{1,6})(?:[ \t]+|$)`)

func (r *mdRenderer) block(b markdown.Block, tight bool) {
	switch v := b.(type) {
	case *markdown.Document:
		for _, c := range v.Children {
			r.block(c, false)
		}
	case *markdown.Paragraph:
		r.paragraph(v.Text, tight)
	case *markdown.List:
		tag := "ul"
		if v.IsOrdered {
			tag = "ol"
		}
		r.b.WriteString("<" + tag)
		if v.IsOrdered && v.OrderedStart != 1 {
			r.b.WriteString(` start="` + strconv.Itoa(v.OrderedStart) + `"`)
		}
		r.b.WriteString(">")
		for _, c := range v.Children {
			r.block(c, !v.IsLoose)
		}
		r.b.WriteString("</" + tag + ">")
	case *markdown.ListItem:
		r.b.WriteString("<li>")
		for _, c := range v.Children {
			r.block(c, tight)
		}
		r.b.WriteString("</li>")
	case *markdown.BlockQuote:
		r.b.WriteString("<blockquote>")
		for _, c := range v.Children {
			r.block(c, false)
		}
		r.b.WriteString("</blockquote>")
	case *markdown.FencedCode:
		r.b.WriteString("<pre><code")
		if info := strings.Fields(v.Info()); len(info) > 0 {
			r.b.WriteString(` class="language-` + html.EscapeString(info[0]) + `"`)
		}
		r.b.WriteString(">" + html.EscapeString(v.Code()) + "</code></pre>")
	case *markdown.IndentedCode:
		r.b.WriteString("<pre><code>" + html.EscapeString(v.Code()) + "</code></pre>")
	}
}

// paragraph splits out ATX heading lines (Mattermost's parser leaves them
// in paragraphs) and renders the rest as paragraphs.
func (r *mdRenderer) paragraph(lines []markdown.Range, tight bool) {
	var run []markdown.Range
	flush := func() {
		if len(run) == 0 {
			return
		}
		if !tight {
			r.b.WriteString("<p>")
		}
		r.inlines(run)
		if !tight {
			r.b.WriteString("</p>")
		}
		run = nil
	}
	for _, line := range lines {
		text := r.src[line.Position:line.End]
		m := headingRE.FindStringIndex(text)
		if m == nil {
			run = append(run, line)
			continue
		}
		flush()
		level := strconv.Itoa(strings.Count(text[m[0]:m[1]], "#"))
		content := markdown.Range{Position: line.Position + m[1], End: line.End}
		// The closing sequence of #s and the line ending are not content.
		trimmed := strings.TrimRightFunc(r.src[content.Position:content.End], unicode.IsSpace)
		if t := strings.TrimRight(trimmed, "#"); t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
			trimmed = strings.TrimRightFunc(t, unicode.IsSpace)
		}
		content.End = content.Position + len(trimmed)
		r.b.WriteString("<h" + level + ">")
		if content.End > content.Position {
			r.inlines([]markdown.Range{content})
		}
		r.b.WriteString("</h" + level + ">")
	}
	flush()
}

func (r *mdRenderer) inlines(ranges []markdown.Range) {
	r.inlineList(markdown.ParseInlines(r.src, ranges, r.defs))
}

func (r *mdRenderer) inlineList(list []markdown.Inline) {
	var texts []*markdown.Text
	for _, in := range list {
		if t, ok := in.(*markdown.Text); ok {
			texts = append(texts, t)
			continue
		}
		r.emphasis(texts)
		texts = nil
		r.inline(in)
	}
	r.emphasis(texts)
}

func (r *mdRenderer) inline(in markdown.Inline) {
	switch v := in.(type) {
	case *markdown.CodeSpan:
		r.b.WriteString("<code>" + html.EscapeString(v.Code) + "</code>")
	case *markdown.HardLineBreak, *markdown.SoftLineBreak:
		r.b.WriteString("<br>")
	case *markdown.InlineLink:
		r.link(v.Destination(), v.Title(), v.Children)
	case *markdown.ReferenceLink:
		r.link(v.Destination(), v.Title(), v.Children)
	case *markdown.Autolink:
		r.link(v.Destination(), "", v.Children)
	case *markdown.InlineImage:
		r.image(v.Destination(), v.Children)
	case *markdown.ReferenceImage:
		r.image(v.Destination(), v.Children)
	case *markdown.Emoji:
		r.b.WriteString(html.EscapeString(":" + v.Name + ":"))
	}
}

// safeSchemes are the link schemes that open a page or a mail, never run
// anything.
var safeSchemes = map[string]bool{"http": true, "https": true, "mailto": true}

// SafeURL says whether a link destination may be a link: an allowed scheme,
// or none (a relative link). Anything unparsable is refused.
func SafeURL(dest string) bool {
	if dest == "" || strings.ContainsFunc(dest, func(c rune) bool { return unicode.IsControl(c) || unicode.IsSpace(c) }) {
		return false
	}
	u, err := url.Parse(dest)
	if err != nil {
		return false
	}
	if u.Scheme == "" {
		// "javascript&colon;..." and the like cannot become a scheme: the
		// destination is used exactly as parsed.
		return !strings.Contains(strings.SplitN(dest, "/", 2)[0], ":")
	}
	return safeSchemes[strings.ToLower(u.Scheme)]
}

func (r *mdRenderer) link(dest, title string, children []markdown.Inline) {
	if !SafeURL(dest) {
		r.inlineList(children)
		return
	}
	r.b.WriteString(`<a href="` + html.EscapeString(dest) + `"`)
	if title != "" {
		r.b.WriteString(` title="` + html.EscapeString(title) + `"`)
	}
	r.b.WriteString(` target="_blank" rel="noopener noreferrer">`)
	r.inlineList(children)
	r.b.WriteString("</a>")
}

// image is shown as a link to the image: the page loads nothing from
// elsewhere (its Content-Security-Policy would refuse it anyway).
func (r *mdRenderer) image(dest string, children []markdown.Inline) {
	var alt strings.Builder
	for _, c := range children {
		if t, ok := c.(*markdown.Text); ok {
			alt.WriteString(t.Text)
		}
	}
	label := []markdown.Inline{&markdown.Text{Text: "image: " + alt.String()}}
	r.link(dest, "", label)
}

// delim is a run of emphasis characters, or plain text (c == 0).
type delim struct {
	text              string
	c                 byte
	n                 int
	canOpen, canClose bool
	opens, closes     string
}

// emphasis renders a run of text nodes, turning matched *, _ and ~~
// delimiters into tags. Text that came from an escape (\*) or an entity is
// never a delimiter.
func (r *mdRenderer) emphasis(texts []*markdown.Text) {
	if len(texts) == 0 {
		return
	}
	var toks []delim
	for _, t := range texts {
		// An escape's text node starts after its backslash; an entity's
		// covers more source than its text.
		pos := t.Range.Position
		escaped := len(t.Text) == 1 && pos > 0 && pos <= len(r.src) && r.src[pos-1] == '\\'
		entity := t.Range.End-pos != len(t.Text) && pos < len(r.src) && r.src[pos] == '&'
		literal := escaped || entity
		if literal {
			toks = append(toks, delim{text: t.Text})
			continue
		}
		toks = splitDelims(toks, t.Text)
	}
	// Flanking needs the neighbouring characters across text nodes.
	for i := range toks {
		if toks[i].c == 0 {
			continue
		}
		before, after := ' ', ' '
		if i > 0 {
			before = lastRune(toks[i-1])
		}
		if i+1 < len(toks) {
			after = firstRune(toks[i+1])
		}
		d := &toks[i]
		d.canOpen = !unicode.IsSpace(after)
		d.canClose = !unicode.IsSpace(before)
		if d.c == '_' {
			d.canOpen = d.canOpen && !isWordRune(before)
			d.canClose = d.canClose && !isWordRune(after)
		}
		if d.c == '~' && d.n != 2 {
			d.canOpen, d.canClose = false, false
		}
	}
	var stack []int
	for i := range toks {
		d := &toks[i]
		if d.c == 0 {
			continue
		}
		for d.canClose && d.n > 0 {
			j := len(stack) - 1
			for ; j >= 0; j-- {
				if toks[stack[j]].c == d.c && toks[stack[j]].n > 0 {
					break
				}
			}
			if j < 0 {
				break
			}
			o := &toks[stack[j]]
			use := 1
			if d.n >= 2 && o.n >= 2 {
				use = 2
			}
			if d.c == '~' && use != 2 {
				break
			}
			tag := map[byte][2]string{'*': {"em", "strong"}, '_': {"em", "strong"}, '~': {"del", "del"}}[d.c][use-1]
			o.n -= use
			d.n -= use
			o.opens = "<" + tag + ">" + o.opens
			d.closes += "</" + tag + ">"
			// Openers between them stay text; a spent opener is done.
			stack = stack[:j+1]
			if o.n == 0 {
				stack = stack[:j]
			}
		}
		if d.canOpen && d.n > 0 {
			stack = append(stack, i)
		}
	}
	for _, d := range toks {
		if d.c == 0 {
			r.b.WriteString(html.EscapeString(d.text))
			continue
		}
		r.b.WriteString(d.closes + html.EscapeString(strings.Repeat(string(d.c), d.n)) + d.opens)
	}
}

// splitDelims cuts text into plain runs and runs of *, _ or ~.
func splitDelims(toks []delim, text string) []delim {
	start := 0
	for i := 0; i < len(text); {
		c := text[i]
		if c != '*' && c != '_' && c != '~' {
			i++
			continue
		}
		j := i
		for j < len(text) && text[j] == c {
			j++
		}
		if i > start {
			toks = append(toks, delim{text: text[start:i]})
		}
		toks = append(toks, delim{c: c, n: j - i})
		i, start = j, j
	}
	if start < len(text) {
		toks = append(toks, delim{text: text[start:]})
	}
	return toks
}

func lastRune(d delim) rune {
	if d.c != 0 {
		return rune(d.c)
	}
	r, _ := utf8.DecodeLastRuneInString(d.text)
	if r == utf8.RuneError && d.text == "" {
		return ' '
	}
	return r
}

func firstRune(d delim) rune {
	if d.c != 0 {
		return rune(d.c)
	}
	r, _ := utf8.DecodeRuneInString(d.text)
	if r == utf8.RuneError && d.text == "" {
		return ' '
	}
	return r
}

func isWordRune(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }
