package harness

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
)

// MiBOfText is the benchmarks' "1 MB text file": numbered lines up to just
// over 1 MiB, so a first window reads it whole and later windows are cut
// from its kept text.
func MiBOfText() []byte { return TextOf(1 << 20) }

// TextOf is numbered lines of text, n bytes at least (less than a line more).
func TextOf(n int) []byte {
	var text strings.Builder
	for i := 1; text.Len() < n; i++ {
		fmt.Fprintf(&text, "%06d the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	return []byte(text.String())
}

// TownSquare is the team's town square as u sees it, where the benchmarks
// post their files.
func (s *Server) TownSquare(ctx context.Context, u User) (*model.Channel, error) {
	ch, _, err := s.Client(u).GetChannelByName(ctx, "town-square", s.Team.Id, "")
	return ch, err
}

// WordDocument is the benchmarks' long document: a .docx of plain
// paragraphs whose XML is about 3 x size bytes (its text about half that,
// within what one file extracts).
func WordDocument(size int) []byte {
	var body strings.Builder
	for i := 0; body.Len() < size*3; i++ {
		fmt.Fprintf(&body, `<w:p><w:r><w:t>Paragraph %d: the harbour report lists cranes %d and %d, tide %d cm, and %x.</w:t></w:r></w:p>`, i, i%7, i%11, i%300, i*2654435761)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range []struct{ name, data string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`},
	} {
		w, _ := zw.Create(p.name)
		_, _ = io.WriteString(w, p.data)
	}
	_ = zw.Close()
	return buf.Bytes()
}

// Prose is n bytes at least of document text, different for each seed:
// sentences of words drawn from a vocabulary of a few thousand made-up
// words, so that a full-text index of many such documents holds many
// words, each in many documents, as a team's real documents do.
func Prose(seed, n int) []byte {
	vocab := proseVocabulary()
	var text strings.Builder
	x := uint64(seed)*0x9E3779B97F4A7C15 + 1
	next := func() int { // xorshift: the same documents on every run
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(len(vocab)))
	}
	for text.Len() < n {
		words := 8 + next()%10
		for i := range words {
			if i > 0 {
				text.WriteByte(' ')
			}
			text.WriteString(vocab[next()])
		}
		text.WriteString(".\n")
	}
	return []byte(text.String())
}

// proseVocabulary is Prose's words: syllables put together, 4,000 of them.
func proseVocabulary() []string {
	syllables := strings.Fields("ka lo mi ra ten vor gal pen dis tor mar bel qui sen lat dro fen hal")
	var vocab []string
	for i := 0; len(vocab) < 4000; i++ {
		a, b, c := syllables[i%len(syllables)], syllables[(i/len(syllables))%len(syllables)], syllables[(i/(len(syllables)*len(syllables)))%len(syllables)]
		vocab = append(vocab, a+b+c)
	}
	return vocab
}
