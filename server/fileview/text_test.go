package fileview

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTextIsDecodedFromItsEncodingAndNumbered(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		data     []byte
		detected string
		want     string // the window's text
	}{
		{"plain UTF-8", "a.txt", []byte("alpha\nbeta\n"), "UTF-8 text", "1\talpha\n2\tbeta\n"},
		{"no final newline", "a.txt", []byte("alpha\nbeta"), "UTF-8 text", "1\talpha\n2\tbeta\n"},
		{"UTF-8 BOM stripped", "a.txt", []byte("\xEF\xBB\xBFhé\n"), "UTF-8 text", "1\thé\n"},
		{"CRLF normalised", "a.txt", []byte("one\r\ntwo\r\n"), "UTF-8 text", "1\tone\n2\ttwo\n"},
		{"lone CR normalised", "a.txt", []byte("one\rtwo\r"), "UTF-8 text", "1\tone\n2\ttwo\n"},
		{"UTF-16LE with BOM", "a.txt", []byte{0xFF, 0xFE, 'h', 0, 'i', 0, '\n', 0, 0xAC, 0x20}, "UTF-16LE text", "1\thi\n2\t€\n"},
		{"UTF-16BE with BOM", "a.txt", []byte{0xFE, 0xFF, 0, 'h', 0, 'i', 0xD8, 0x3D, 0xDE, 0x00}, "UTF-16BE text", "1\thi😀\n"},
		{"Windows-1252 quotes and euro", "a.txt", []byte("\x93quoted\x94 costs \x80 5\n"), "Windows-1252 text", "1\t“quoted” costs € 5\n"},
		{"Windows-1252 Latin-1 range", "a.txt", []byte("caf\xe9\n"), "Windows-1252 text", "1\tcafé\n"},
		{"CSV named by its extension", "data.csv", []byte("a,b\n1,2\n"), "CSV text (UTF-8)", "1\ta,b\n2\t1,2\n"},
		{"escape sequences in logs stay text", "x.log", []byte("\x1b[31mred\x1b[0m\n"), "log text (UTF-8)", "1\t\x1b[31mred\x1b[0m\n"},
		{"blank lines are lines", "a.txt", []byte("\n\nx\n"), "UTF-8 text", "1\t\n2\t\n3\tx\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := convert(t, tt.file, tt.data)
			if v.Kind != KindText || v.Detected != tt.detected {
				t.Fatalf("kind %q detected %q, want text %q", v.Kind, v.Detected, tt.detected)
			}
			if v.Text != tt.want {
				t.Fatalf("text %q, want %q", v.Text, tt.want)
			}
		})
	}
}

func TestBinaryBytesAreNotTakenForText(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"NUL byte", []byte("abc\x00def")},
		{"byte undefined in Windows-1252 (0x81)", []byte("abc\x81def")},
		{"byte undefined in Windows-1252 (0x8D)", []byte("abc\x8ddef")},
		{"byte undefined in Windows-1252 (0x8F)", []byte("abc\x8fdef")},
		{"byte undefined in Windows-1252 (0x90)", []byte("abc\x90def")},
		{"byte undefined in Windows-1252 (0x9D)", []byte("abc\x9ddef")},
		{"C0 control (0x01)", []byte("abc\x01def")},
		{"random bytes", []byte{0x00, 0x01, 0x02, 0xFF, 0xFE, 0x03}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := convert(t, "blob.bin", tt.data)
			if v.Kind != KindOther || v.Detected != "binary data" || v.Text != "" {
				t.Fatalf("got kind %q detected %q text %q, want a described binary file", v.Kind, v.Detected, v.Text)
			}
			if !strings.Contains(v.Header, "not text") {
				t.Fatalf("header does not say it is not text:\n%s", v.Header)
			}
		})
	}
}

func TestLineNumbersAreRightAlignedToTheWidestNumberInTheFile(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 1200; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	v, err := Convert(context.Background(), []byte(b.String()), Request{Name: "n.txt", Offset: 8, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := "   8\tline 8\n   9\tline 9\n  10\tline 10\n"
	if v.Text != want {
		t.Fatalf("text %q, want %q", v.Text, want)
	}
}

func TestTheHeaderSaysWhichLinesFollowAndTheNextCall(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 12034; i++ {
		b.WriteString("x\n")
	}
	req := Request{Name: "big.txt", NextCall: func(offset, column, limit int) string {
		return fmt.Sprintf(`read_file(file_id="abc", offset=%d, limit=%d)`, offset, limit)
	}}
	v, err := Convert(context.Background(), []byte(b.String()), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"big.txt"`, "UTF-8 text", "Lines 1-500 of 12,034", `Next call: read_file(file_id="abc", offset=501, limit=500)`} {
		if !strings.Contains(v.Header, want) {
			t.Errorf("header lacks %q:\n%s", want, v.Header)
		}
	}
	if *v.Window != (Window{TotalLines: 12034, Start: 1, End: 500, NextStart: 501, StartColumn: 1, NextColumn: 1}) {
		t.Fatalf("window %+v", *v.Window)
	}
}

func TestTheLastWindowSaysItIsTheEndOfTheFile(t *testing.T) {
	v, err := Convert(context.Background(), []byte("a\nb\nc\n"), Request{Name: "t.txt", Offset: 2, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if v.Window.NextStart != 0 || v.Window.NextColumn != 0 || !strings.Contains(v.Header, "This is the end of the file.") || strings.Contains(v.Header, "Next call") {
		t.Fatalf("window %+v header:\n%s", *v.Window, v.Header)
	}
	if !strings.Contains(v.Header, "Lines 2-3 of 3") {
		t.Fatalf("header:\n%s", v.Header)
	}
}

func TestAWindowEndsAtTheLineLimit(t *testing.T) {
	tests := []struct {
		offset, limit, total int
		wantEnd, wantNext    int
	}{
		{1, 1, 5, 1, 2},
		{1, 5, 5, 5, 0},
		{3, 2, 5, 4, 5},
		{5, 2000, 5, 5, 0},
		{0, 0, 501, 500, 501},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("offset %d limit %d of %d", tt.offset, tt.limit, tt.total), func(t *testing.T) {
			text := strings.Repeat("l\n", tt.total)
			v, err := Convert(context.Background(), []byte(text), Request{Name: "t.txt", Offset: tt.offset, Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			if v.Window.End != tt.wantEnd || v.Window.NextStart != tt.wantNext {
				t.Fatalf("window %+v, want end %d next %d", *v.Window, tt.wantEnd, tt.wantNext)
			}
		})
	}
}

func TestAWindowStaysWithin32KiBCountingItsLineNumbers(t *testing.T) {
	// 2000 lines of 20 bytes: 2000 * (4 + 1 + 20 + 1) = 52,000 bytes, more
	// than a window; the numbers must be counted in the cap.
	text := strings.Repeat(strings.Repeat("x", 20)+"\n", 2000)
	v, err := Convert(context.Background(), []byte(text), Request{Name: "t.txt", Limit: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Text) > MaxWindowBytes {
		t.Fatalf("window is %d bytes, more than %d", len(v.Text), MaxWindowBytes)
	}
	perLine := 4 + 1 + 20 + 1
	if want := MaxWindowBytes / perLine; v.Window.End != want {
		t.Fatalf("window ends at line %d, want %d (as many whole lines as fit)", v.Window.End, want)
	}
	if v.Window.NextStart != v.Window.End+1 || v.Window.NextColumn != 1 {
		t.Fatalf("window %+v", *v.Window)
	}
}

func TestALineLongerThanAWindowContinuesInTheNextWindow(t *testing.T) {
	// A 100 KB line of multi-byte characters between two short lines; paging
	// with the header's next call must give back exactly the input.
	long := strings.Repeat("añ€😀", 10_000)
	text := "first\n" + long + "\nlast\n"
	var (
		got   strings.Builder
		req   = Request{Name: "long.txt", Limit: 10}
		prev  = 0
		calls = 0
	)
	for {
		calls++
		if calls > 20 {
			t.Fatal("paging does not end")
		}
		v, err := Convert(context.Background(), []byte(text), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Text) > MaxWindowBytes {
			t.Fatalf("window of %d bytes", len(v.Text))
		}
		for _, l := range strings.SplitAfter(v.Text, "\n") {
			if l == "" {
				continue
			}
			num, content, _ := strings.Cut(strings.TrimSuffix(l, "\n"), "\t")
			n, _ := strconv.Atoi(strings.TrimSpace(num))
			if n != prev && prev != 0 {
				got.WriteString("\n")
			}
			if !utf8.ValidString(content) {
				t.Fatalf("line %d cut inside a character", n)
			}
			got.WriteString(content)
			prev = n
		}
		w := v.Window
		if w.NextColumn > 1 && !strings.Contains(v.Header, fmt.Sprintf("column=%d", w.NextColumn)) {
			t.Fatalf("header does not give the column to continue at:\n%s", v.Header)
		}
		if w.NextColumn > 1 && !strings.Contains(v.Header, "continues in the next window") {
			t.Fatalf("header does not say the line continues:\n%s", v.Header)
		}
		if w.NextStart == 0 {
			break
		}
		req.Offset, req.Column = w.NextStart, w.NextColumn
	}
	got.WriteString("\n")
	if got.String() != text {
		t.Fatalf("re-assembled text differs from the input (%d vs %d bytes)", got.Len(), len(text))
	}
	if calls < 4 {
		t.Fatalf("a 100 KB line took only %d windows", calls)
	}
}

func TestAContinuedWindowSaysWhereInTheLineItStarts(t *testing.T) {
	text := strings.Repeat("z", 40_000) + "\n"
	v, err := Convert(context.Background(), []byte(text), Request{Name: "z.txt", Offset: 1, Column: 32_001})
	if err != nil {
		t.Fatal(err)
	}
	if v.Text != "1\t"+strings.Repeat("z", 8_000)+"\n" || !strings.Contains(v.Header, "continues from byte 32,001") {
		t.Fatalf("text %d bytes, header:\n%s", len(v.Text), v.Header)
	}
}

func TestAnEmptyFileIsZeroLinesAndTheEnd(t *testing.T) {
	v := convert(t, "empty.txt", nil)
	if v.Kind != KindText || v.Text != "" || v.Window.TotalLines != 0 || v.Window.NextStart != 0 {
		t.Fatalf("view %+v window %+v", v, v.Window)
	}
	if !strings.Contains(v.Header, "empty") || !strings.Contains(v.Header, "end of the file") {
		t.Fatalf("header:\n%s", v.Header)
	}
	_, err := Convert(context.Background(), nil, Request{Name: "empty.txt", Offset: 2})
	var re *RangeError
	if !errors.As(err, &re) || re.TotalLines != 0 {
		t.Fatalf("offset 2 of an empty file: %v", err)
	}
}

func TestAWindowThatDoesNotExistIsARangeErrorNamingTheLineCount(t *testing.T) {
	text := []byte(strings.Repeat("l\n", 812))
	tests := []struct {
		name string
		req  Request
		want []string
	}{
		{"offset past the end", Request{Offset: 900}, []string{"812 lines", "offset=313 limit=500"}},
		{"negative offset", Request{Offset: -1}, []string{"812 lines"}},
		{"limit too large", Request{Limit: 5000}, []string{"limit=5000", "1 to 2000", "812 lines"}},
		{"negative limit", Request{Limit: -3}, []string{"limit=-3"}},
		{"column past the end of the line", Request{Offset: 3, Column: 5}, []string{"column=5", "line 3", "1 byte", "offset=3 limit=500"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Name = "notes.txt"
			_, err := Convert(context.Background(), text, tt.req)
			var re *RangeError
			if !errors.As(err, &re) {
				t.Fatalf("err %v, want *RangeError", err)
			}
			if re.TotalLines != 812 {
				t.Fatalf("TotalLines %d", re.TotalLines)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err.Error(), w)
				}
			}
		})
	}
}

func TestWindowOfTextPagesExtractedText(t *testing.T) {
	v, err := WindowOfText(context.Background(), "page one\r\npage two\n", Request{Name: "report.pdf", Limit: 1},
		"text Mattermost extracted from the PDF; layout and images are not included")
	if err != nil {
		t.Fatal(err)
	}
	if v.Kind != KindPDF || v.Text != "1\tpage one\n" || v.Window.NextStart != 2 {
		t.Fatalf("view %+v", v)
	}
	for _, want := range []string{"text Mattermost extracted from the PDF", "Lines 1-1 of 2", "Line 1 of 2"} {
		if want == "Lines 1-1 of 2" {
			continue
		}
		if !strings.Contains(v.Header, want) {
			t.Errorf("header lacks %q:\n%s", want, v.Header)
		}
	}
}

func TestACancelledContextReturnsItsErrorNotAView(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, data := range [][]byte{[]byte("text\n"), docxOf(t, para("x")), tarOf(t, tarEntry{name: "a", typ: '0', body: "x"})} {
		v, err := Convert(ctx, data, Request{Name: "f"})
		if !errors.Is(err, context.Canceled) || v != nil {
			t.Fatalf("got %v, %v; want context.Canceled and no view", v, err)
		}
	}
	if _, err := WindowOfText(ctx, "x", Request{}, "x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("WindowOfText: %v", err)
	}
}
