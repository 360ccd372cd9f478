package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/viewcache"
)

// waitKept waits until the text of an attachment a first window read is in
// the KV store, which every node reads: it is kept after the answer has
// gone. Its record (JSON, written after the compressed chunks) is what a
// read finds first.
func waitKept(t *testing.T, fileID string) {
	t.Helper()
	key := viewcache.StoredKey(viewcache.Key{Source: "attachment", ID: fileID})
	eventually(t, "the first window's text is kept in the store", func() bool {
		rows, _, err := mm.KVRows(context.Background(), key, `{"n":`)
		return err == nil && rows == 1
	})
}

func TestTheSecondWindowOfALongFileIsCutFromTheTextTheFirstReadKeptOnAnyNode(t *testing.T) {
	alice := mm.Users[0]
	ch := townSquare(t)
	// Over the 1 MiB of text Mattermost extracts: its extracted text is not
	// the whole file, so the bytes are what a first read needs.
	original := numberedText(48_000)
	_, infos := postFiles(t, alice, ch.Id, "the long report", map[string][]byte{"long-report.txt": []byte(original)})
	_, uncached := postFiles(t, alice, ch.Id, "another report", map[string][]byte{"other-report.txt": []byte(original)})
	nodes := nodeURLs(t)
	first := connect(t, nodes[0], alice.Token)
	if res, out := readFile(t, first, map[string]any{"file_id": infos[0].Id}); res.IsError || out.Start != 1 || out.NextStart == 0 {
		t.Fatalf("window 1: %s", text(res))
	}
	waitKept(t, infos[0].Id)
	// From now on the file's bytes cannot be fetched: whatever answers the
	// next windows does so without them.
	for _, f := range []string{infos[0].Id, uncached[0].Id} {
		if err := mm.RemoveStoredFile(f); err != nil {
			t.Fatal(err)
		}
	}
	second := connect(t, nodes[1], alice.Token)
	res, out := readFile(t, second, map[string]any{"file_id": infos[0].Id, "offset": 501, "limit": 500})
	lines := strings.Split(original, "\n")
	if res.IsError || out.Start != 501 || out.End != 1000 || !strings.Contains(text(res), lines[500]) || !strings.Contains(text(res), lines[999]) {
		t.Fatalf("window 2 on the other node: %s", text(res))
	}
	// The same read of a file nobody read before needs its bytes, and they
	// are gone: the window above came from the kept text.
	if res, _ := readFile(t, second, map[string]any{"file_id": uncached[0].Id, "offset": 501, "limit": 500}); !res.IsError && strings.Contains(text(res), lines[500]) {
		t.Fatalf("a file whose bytes are gone was read: %s", text(res))
	}
}

func TestAKeptTextIsNoWayAroundTheAccessCheck(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ch := createChannel(t, alice, uniq(t, "kept-"), "Kept private", model.ChannelTypePrivate)
	_, infos := postFiles(t, alice, ch.Id, "private report", map[string][]byte{"private-report.txt": []byte(numberedText(1500))})
	if res, _ := readFile(t, aliceClient(t), map[string]any{"file_id": infos[0].Id}); res.IsError {
		t.Fatalf("alice's window 1: %s", text(res))
	}
	res, _ := readFile(t, connect(t, mm.URL, bob.Token), map[string]any{"file_id": infos[0].Id, "offset": 501})
	if !res.IsError || !strings.Contains(text(res), "not found") || strings.Contains(text(res), "line 501") {
		t.Fatalf("bob read a kept text of alice's private channel: %s", text(res))
	}
}

func TestAPlainTextFilesFirstWindowNeedsNoSecondCopyOfItsBytes(t *testing.T) {
	alice := mm.Users[0]
	ch := townSquare(t)
	original := numberedText(1500)
	_, infos := postFiles(t, alice, ch.Id, "a short report", map[string][]byte{"short-report.txt": []byte(original)})
	// Without its stored bytes, the file is still read whole from the text
	// Mattermost extracted when it was uploaded, which came with its record
	// and is the same text (extraction runs in the background: wait for it).
	if err := mm.RemoveStoredFile(infos[0].Id); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(original, "\n")
	c := aliceClient(t)
	// Extraction is queued behind the server's other work: on two busy
	// cores it has taken over ten seconds.
	eventuallyWithin(t, time.Minute, "window 1 of the file is read from its extracted text", func() bool {
		res, out := readFile(t, c, map[string]any{"file_id": infos[0].Id, "limit": 100})
		return !res.IsError && out.Start == 1 && out.End == 100 && strings.Contains(text(res), lines[0]) && strings.Contains(text(res), lines[99])
	})
}
