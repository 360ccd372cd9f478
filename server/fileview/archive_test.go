package fileview

import (
	"archive/tar"
	"strings"
	"testing"
)

// tarBz2 is a 195-byte .tar.bz2 made once with `tar --format=ustar` and
// `bzip2 -9` (compress/bzip2 has no writer): dir/, dir/hello.txt (6 bytes),
// a hard link to it, and a symbolic link "link" -> dir/hello.txt.
const tarBz2 = "" +
	"\x42\x5a\x68\x39\x31\x41\x59\x26\x53\x59\xee\x66\xa6\x71\x00\x00\xf3\xfb\x94\xc9\x90\x00\x40\x40" +
	"\x01\xff\x80\x08\x04\x66\x6d\x9e\x40\x04\x00\x10\x00\x00\x88\x30\x00\xcc\xa0\x92\x9a\x6a\x9e\xa7" +
	"\xa9\xea\x07\xa9\xa1\xa1\xa0\xf5\x32\x64\x31\x84\xc4\xd0\x60\x8c\x43\x23\x09\x81\x54\x4a\x7a\x43" +
	"\x40\x00\xd3\x40\x03\x4b\x02\xd9\x85\x77\x49\x68\xa9\x00\x49\xa6\x00\x95\x6e\xb9\x9c\x1a\x7c\xda" +
	"\x20\x58\x28\x1c\x67\x05\x0b\x48\x84\x90\xf3\x42\x24\xb2\x1b\xaa\x44\x71\x24\x23\x92\xe6\x43\x89" +
	"\x24\x68\x24\x58\x67\x98\x8a\x13\x75\xb4\x2b\x49\xb7\x1d\x93\x11\x3b\x2a\xc4\x6c\x2a\x3c\xa2\xe1" +
	"\x52\xf9\x11\xa0\xf0\xa3\x32\x0b\xc3\x3c\xf4\x9f\x0b\x21\xf0\x0c\x6c\x8c\x9f\x14\x3a\x32\x98\x5e" +
	"\x3a\x0f\x85\x61\x79\xbc\xfc\x58\x30\x30\x3f\x18\x3d\x2e\x39\x90\x7f\x17\x72\x45\x38\x50\x90\xee" +
	"\x66\xa6\x71"

func TestArchivesAreListedOneEntryPerLine(t *testing.T) {
	tarFile := tarOf(t,
		tarEntry{name: "docs/", typ: tar.TypeDir},
		tarEntry{name: "docs/readme.txt", typ: tar.TypeReg, body: "hello world"},
		tarEntry{name: "latest", typ: tar.TypeSymlink, linkname: "docs/readme.txt"},
		tarEntry{name: "copy", typ: tar.TypeLink, linkname: "docs/readme.txt"},
	)
	tarWant := []string{"docs/\tdirectory", "docs/readme.txt\t11 bytes", "latest\tlink -> docs/readme.txt", "copy\thard link -> docs/readme.txt"}
	tests := []struct {
		name, file string
		data       []byte
		detected   string
		want       []string
	}{
		{"zip", "a.zip", rawZipOf(t,
			rawZipPart{name: "dir/", uncompress: ""},
			rawZipPart{name: "dir/a.txt", uncompress: "12345"},
			rawZipPart{name: "secret.txt", deflated: []byte{0x03, 0x00}, size: 1234, encrypted: true},
			rawZipPart{name: "ln", uncompress: "dir/a.txt", unixMode: 0xA1FF},
		), "ZIP archive", []string{"dir/\tdirectory", "dir/a.txt\t5 bytes", "secret.txt\t1,234 bytes, encrypted", "ln\tlink -> dir/a.txt"}},
		{"tar", "a.tar", tarFile, "tar archive", tarWant},
		{"tar.gz", "a.tar.gz", gzipOf(t, tarFile), "gzip-compressed tar archive", tarWant},
		{"tar.bz2", "a.tar.bz2", []byte(tarBz2), "bzip2-compressed tar archive",
			[]string{"dir/\tdirectory", "dir/hello.txt\t6 bytes", "dir/hello.txt\thard link -> dir/hello.txt", "link\tlink -> dir/hello.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := convert(t, tt.file, tt.data)
			if v.Kind != KindArchive || v.Detected != tt.detected || v.Mismatch != "" {
				t.Fatalf("kind %q detected %q mismatch %q", v.Kind, v.Detected, v.Mismatch)
			}
			if got := lines(t, v); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("lines %q,\nwant %q", got, tt.want)
			}
			if !strings.Contains(v.Header, countNoun(len(tt.want), "entry", "entries")) || !strings.Contains(v.Header, "contents are not included") {
				t.Fatalf("header:\n%s", v.Header)
			}
		})
	}
}

func TestTheHeaderCountsEncryptedZipEntries(t *testing.T) {
	data := rawZipOf(t, rawZipPart{name: "a", deflated: []byte{0x03, 0x00}, encrypted: true}, rawZipPart{name: "b", uncompress: "x"})
	if v := convert(t, "e.zip", data); !strings.Contains(v.Header, "2 entries (1 encrypted)") {
		t.Fatalf("header:\n%s", v.Header)
	}
}

func TestInvisibleCharactersInEntryNamesAreMadeVisible(t *testing.T) {
	tests := []struct {
		name, entry, want string
	}{
		{"newline", "evil\nname.txt", "evil\uFFFDname.txt"},
		{"tab", "a\tb", "a\uFFFDb"},
		{"escape", "\x1b[2Jclear", "\uFFFD[2Jclear"},
		{"right-to-left override", "invoice\u202Etxt.exe", "invoice\uFFFDtxt.exe"},
		{"zero-width space", "a\u200Bb", "a\uFFFDb"},
		{"invalid UTF-8", "bad\xffname", "bad\uFFFDname"},
		{"line separator", "a\u2028b", "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, data := range [][]byte{
				zipOf(t, part{tt.entry, "x"}),
				tarOf(t, tarEntry{name: tt.entry, typ: tar.TypeReg, body: "x"}),
			} {
				v := convert(t, "names.bin", data)
				got := lines(t, v)
				if len(got) != 1 || got[0] != tt.want+"\t1 byte" {
					t.Fatalf("lines %q, want %q", got, tt.want+"\t1 byte")
				}
			}
		})
	}
}

func TestAnArchiveWithMoreEntriesThanTheListingSaysHowManyAreLeftOut(t *testing.T) {
	parts := make([]part, MaxArchiveEntries+25)
	for i := range parts {
		parts[i] = part{name: "f" + strings.Repeat("x", i%7) + string(rune('a'+i%26)), body: ""}
	}
	v := convert(t, "many.zip", zipOf(t, parts...))
	if v.Window.TotalLines != MaxArchiveEntries {
		t.Fatalf("listed %d lines", v.Window.TotalLines)
	}
	if !strings.Contains(v.Header, "the listing stopped at 10,000 entries; 25 more are not listed") {
		t.Fatalf("header:\n%s", v.Header)
	}
}

func TestADamagedTarListsWhatCameBeforeTheDamage(t *testing.T) {
	data := tarOf(t, tarEntry{name: "a", typ: tar.TypeReg, body: "x"}, tarEntry{name: "b", typ: tar.TypeReg, body: strings.Repeat("y", 2000)})
	v := convert(t, "cut.tar", data[:1024+100])
	if got := lines(t, v); len(got) < 1 || got[0] != "a\t1 byte" || !strings.Contains(v.Header, "damaged or cut short") {
		t.Fatalf("lines %q header:\n%s", got, v.Header)
	}
}
