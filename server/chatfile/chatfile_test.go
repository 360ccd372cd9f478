package chatfile

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
)

func TestAFileIsNamedAfterWhatChatGPTCallsItOrItsType(t *testing.T) {
	for _, tc := range []struct {
		ref  Ref
		want string
	}{
		{Ref{FileName: "Q3 plan.pdf", MIMEType: "application/pdf"}, "Q3 plan.pdf"},
		{Ref{FileName: "../../etc/passwd"}, "passwd"},
		{Ref{FileName: `C:\Users\me\notes.txt`}, "notes.txt"},
		{Ref{FileName: "a\x00b\nc.md"}, "abc.md"},
		{Ref{FileName: "", MIMEType: "text/plain"}, "attachment.txt"},
		{Ref{FileName: "..", MIMEType: "image/png"}, "attachment.png"},
		{Ref{FileName: "", MIMEType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}, "attachment.xlsx"},
		{Ref{FileName: "", MIMEType: "application/x-unknown-thing"}, "attachment"},
		{Ref{FileName: strings.Repeat("é", 200) + ".txt"}, strings.Repeat("é", (names.MaxFileNameBytes-4)/2) + ".txt"},
	} {
		if got := tc.ref.Name(); got != tc.want {
			t.Errorf("%q (%s): %q, want %q", tc.ref.FileName, tc.ref.MIMEType, got, tc.want)
		}
	}
}

func TestAnObjectIsCheckedBeforeAnythingIsFetched(t *testing.T) {
	ok := Ref{DownloadURL: "https://files.example/f?sig=x", FileID: "file-1"}
	if err := ok.Check(); err != nil {
		t.Fatalf("a whole object was refused: %v", err)
	}
	for name, r := range map[string]Ref{
		"no url":      {FileID: "file-1"},
		"no id":       {DownloadURL: "https://files.example/f"},
		"a huge url":  {DownloadURL: "https://files.example/" + strings.Repeat("a", maxURLBytes), FileID: "f"},
		"a huge id":   {DownloadURL: "https://files.example/f", FileID: strings.Repeat("a", maxIDBytes+1)},
		"a huge type": {DownloadURL: "https://files.example/f", FileID: "f", MIMEType: strings.Repeat("a", 300)},
		"not a url":   {DownloadURL: "https://files.example/%zz", FileID: "f"},
	} {
		if err := r.Check(); !errors.Is(err, ErrBadRef) {
			t.Errorf("%s: %v, want ErrBadRef", name, err)
		}
	}
	if h := ok.Host(); h != "files.example" {
		t.Errorf("host %q", h)
	}
}

func TestOnlyChatGPTsConnectorTakesFileObjects(t *testing.T) {
	if !Takes("openai-mcp") || Takes("claude-ai") || Takes("") {
		t.Fatal("Takes names the wrong clients")
	}
}

func TestAGivenBackFileCarriesTheTypeOfItsName(t *testing.T) {
	for name, want := range map[string]string{"a.txt": "text/plain", "b.PDF": "application/pdf", "c.xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "d": "application/octet-stream"} {
		if got := TypeOf(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

func FuzzEveryNameChatGPTGivesBecomesAFileNameTheWorkspaceTakes(f *testing.F) {
	f.Add("report.pdf", "application/pdf")
	f.Add("../x", "")
	f.Add("\xff\xfe", "text/plain")
	f.Fuzz(func(t *testing.T, name, mediaType string) {
		got := Ref{FileName: name, MIMEType: mediaType}.Name()
		if err := names.CheckFile(got); err != nil {
			t.Fatalf("%q (%q) named %q, which is no file name: %v", name, mediaType, got, err)
		}
	})
}
