package names

import "fmt"

// lineSymbols are the characters that stand for a line break where
// Mattermost shows a name as text, with why. The web app's markdown lexer
// turns U+2424 into a real line break before it renders a post, so a name
// holding it reads as two lines there and as one in the mobile app; the
// others look like one, and ↵ is how the plugin's own posts show a line
// break, so a name holding any of them could pose as two lines there. (The
// line and paragraph separators are refused with the invisible characters.)
var lineSymbols = map[rune]string{
	0x2424: "Mattermost's web app shows it as a line break", // ␤ SYMBOL FOR NEWLINE
	0x240A: "it reads as a line break",                      // ␊ SYMBOL FOR LINE FEED
	0x240D: "it reads as a line break",                      // ␍ SYMBOL FOR CARRIAGE RETURN
	0x21B5: "it reads as a line break",                      // ↵ DOWNWARDS ARROW WITH CORNER LEFTWARDS
}

// LineSymbol is the first character of s that stands for a line break, as
// a refusal names it ("the ␤ character (U+2424)"), and why it is refused;
// "" when s has none.
func LineSymbol(s string) (char, why string) {
	for _, r := range s {
		if why, ok := lineSymbols[r]; ok {
			return fmt.Sprintf("the %c character (U+%04X)", r, r), why
		}
	}
	return "", ""
}
