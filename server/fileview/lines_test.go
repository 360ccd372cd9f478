package fileview

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// texts whose lines cross the index's strides in every way: a final line
// with and without "\n", empty lines, a line longer than a window.
func indexedTexts() map[string]string {
	var short, mixed strings.Builder
	for i := 1; i <= 3*lineStride+5; i++ {
		fmt.Fprintf(&short, "line %d\n", i)
		switch {
		case i%7 == 0:
			mixed.WriteString("\n")
		case i == 1500:
			mixed.WriteString(strings.Repeat("é", MaxWindowBytes) + "\n")
		default:
			fmt.Fprintf(&mixed, "%d ünïcode\n", i)
		}
	}
	return map[string]string{
		"short lines":             short.String(),
		"without a final newline": strings.TrimSuffix(short.String(), "\n"),
		"empty and long lines":    mixed.String(),
		"exactly one stride":      strings.Repeat("x\n", lineStride),
		"one line":                "only",
		"empty":                   "",
		"newlines only":           strings.Repeat("\n", lineStride+1),
	}
}

func TestAWindowOfAnIndexedTextIsTheWindowOfTheTextItself(t *testing.T) {
	ctx := context.Background()
	for name, text := range indexedTexts() {
		t.Run(name, func(t *testing.T) {
			lines := IndexLines(text)
			if lines.total != countLines(text) {
				t.Fatalf("indexed %d lines, the text has %d", lines.total, countLines(text))
			}
			total := countLines(text)
			for _, offset := range []int{0, 1, 2, lineStride - 1, lineStride, lineStride + 1, 2*lineStride + 1, 1500, total - 1, total, total + 1} {
				for _, column := range []int{0, 1, 3, 40000} {
					for _, limit := range []int{0, 1, 500} {
						req := Request{Name: "a.txt", Offset: offset, Column: column, Limit: limit}
						want, wantW, wantErr := window(ctx, text, nil, req)
						got, gotW, gotErr := window(ctx, text, lines, req)
						if got != want || !reflect.DeepEqual(gotW, wantW) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
							t.Fatalf("offset %d column %d limit %d: indexed %q %+v %v, want %q %+v %v",
								offset, column, limit, got, gotW, gotErr, want, wantW, wantErr)
						}
					}
				}
			}
		})
	}
}

func TestAnIndexOfAnotherTextIsNotUsed(t *testing.T) {
	ctx := context.Background()
	text := strings.Repeat("a line\n", 3000)
	other := IndexLines(strings.Repeat("a much longer line\n", 10))
	want, _, _ := window(ctx, text, nil, Request{Offset: 2500, Limit: 3})
	got, _, err := window(ctx, text, other, Request{Offset: 2500, Limit: 3})
	if err != nil || got != want {
		t.Fatalf("%q, %v, want %q", got, err, want)
	}
}

func TestAKeptTextIndexedOnceWindowsAsBefore(t *testing.T) {
	text := &Text{Kind: KindText, Body: strings.Repeat("numbered\n", 5000), Size: 45000}
	before, err := text.Window(context.Background(), Request{Name: "a.txt", Offset: 4001, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	text.Index()
	after, err := text.Window(context.Background(), Request{Name: "a.txt", Offset: 4001, Limit: 10})
	if err != nil || after.Text != before.Text || after.Header != before.Header || !reflect.DeepEqual(after.Window, before.Window) {
		t.Fatalf("indexed: %+v, %v; before: %+v", after, err, before)
	}
}

func BenchmarkAWindowOfAKept8MiBText(b *testing.B) {
	var s strings.Builder
	for i := 0; s.Len() < 8<<20; i++ {
		fmt.Fprintf(&s, "Paragraph %d: the harbour report lists cranes and the tide.\n", i)
	}
	for _, indexed := range []bool{false, true} {
		text := &Text{Kind: KindText, Body: s.String()}
		if indexed {
			text.Index()
		}
		b.Run(fmt.Sprintf("indexed=%v", indexed), func(b *testing.B) {
			for b.Loop() {
				if _, err := text.Window(context.Background(), Request{Name: "a.txt", Offset: 501, Limit: 500}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
