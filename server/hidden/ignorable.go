package hidden

import "unicode"

// defaultIgnorable is Unicode's Default_Ignorable_Code_Point property in
// full, unassigned ranges included, as DerivedCoreProperties.txt lists it
// (unchanged from Unicode 15 to 16): the code points a renderer that does
// not know them must draw as nothing. Go's unicode package has no such
// table, only the parts it is derived from, and a browser hides even the
// unassigned ones, so a future character there hides text today.
var defaultIgnorable = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x00AD, Hi: 0x00AD, Stride: 1}, // soft hyphen
		{Lo: 0x034F, Hi: 0x034F, Stride: 1}, // combining grapheme joiner
		{Lo: 0x061C, Hi: 0x061C, Stride: 1}, // Arabic letter mark
		{Lo: 0x115F, Hi: 0x1160, Stride: 1}, // Hangul fillers
		{Lo: 0x17B4, Hi: 0x17B5, Stride: 1}, // Khmer inherent vowels
		{Lo: 0x180B, Hi: 0x180F, Stride: 1}, // Mongolian selectors and vowel separator
		{Lo: 0x200B, Hi: 0x200F, Stride: 1}, // zero-width characters and marks
		{Lo: 0x202A, Hi: 0x202E, Stride: 1}, // bidirectional embeddings and overrides
		{Lo: 0x2060, Hi: 0x206F, Stride: 1}, // word joiner, invisible operators, U+2065, isolates, deprecated formats
		{Lo: 0x3164, Hi: 0x3164, Stride: 1}, // Hangul filler
		{Lo: 0xFE00, Hi: 0xFE0F, Stride: 1}, // variation selectors
		{Lo: 0xFEFF, Hi: 0xFEFF, Stride: 1}, // zero-width no-break space
		{Lo: 0xFFA0, Hi: 0xFFA0, Stride: 1}, // halfwidth Hangul filler
		{Lo: 0xFFF0, Hi: 0xFFF8, Stride: 1}, // unassigned specials
	},
	R32: []unicode.Range32{
		{Lo: 0x1BCA0, Hi: 0x1BCA3, Stride: 1}, // shorthand format controls
		{Lo: 0x1D173, Hi: 0x1D17A, Stride: 1}, // musical beam and phrase controls
		{Lo: 0xE0000, Hi: 0xE0FFF, Stride: 1}, // tags, variation selectors supplement and the unassigned rest of the plane's start
	},
}
