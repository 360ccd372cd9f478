package wake

import (
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
)

// woke reports whether ch receives within d.
func woke(ch <-chan string, d time.Duration) bool {
	_, ok := wokeWith(ch, d)
	return ok
}

// wokeWith is the detail ch receives within d.
func wokeWith(ch <-chan string, d time.Duration) (string, bool) {
	select {
	case detail := <-ch:
		return detail, true
	case <-time.After(d):
		return "", false
	}
}

func TestAWaitIsWokenByWhatHappenedOnItsOwnNodeAndNotByAnotherTopic(t *testing.T) {
	h := &Hub{KV: kvtest.New()}
	woken, done := h.Wait(Channel("town"))
	defer done()
	other, doneOther := h.Wait(Channel("offtopic"))
	defer doneOther()
	h.Happened(Channel("town"), "post1")
	if detail, ok := wokeWith(woken, time.Second); !ok || detail != "post1" {
		t.Fatalf("the wait was woken with %q (%v), want the post", detail, ok)
	}
	if woke(other, 50*time.Millisecond) {
		t.Fatal("a wait for another channel was woken")
	}
	// Woken again by a later post, once it looked.
	h.Happened(Channel("town"), "post2")
	if detail, ok := wokeWith(woken, time.Second); !ok || detail != "post2" {
		t.Fatal("the wait was not woken a second time")
	}
}

func TestAWaitOnOneNodeIsWokenThroughTheKVStoreByWhatHappenedOnAnotherWithoutClusterEvents(t *testing.T) {
	kv := kvtest.New()
	node1, node2 := &Hub{KV: kv}, &Hub{KV: kv}
	woken, done := node1.Wait(FileRequest("r1"))
	defer done()
	posts, donePosts := node1.Wait(Channel("town"))
	defer donePosts()
	node2.Happened(Channel("town"), "abc")
	if detail, ok := wokeWith(posts, 2*time.Second); !ok || detail != "abc" {
		t.Fatalf("node 1 heard %q (%v) through the KV store, want the post", detail, ok)
	}
	started := time.Now()
	node2.Happened(FileRequest("r1"), "")
	if !woke(woken, 2*time.Second) {
		t.Fatal("the wait on node 1 was not woken by node 2")
	}
	if took := time.Since(started); took > InboxPoll+500*time.Millisecond {
		t.Errorf("the wake took %v, over a poll of the inbox", took)
	}
}

func TestAClusterEventWakesTheWaitsOfTheNodeThatHearsIt(t *testing.T) {
	kv := kvtest.New()
	var sent [][]byte
	node1, node2 := &Hub{KV: kv}, &Hub{KV: kv, Publish: func(b []byte) { sent = append(sent, b) }}
	woken, done := node1.Wait(Write("w1"))
	defer done()
	node2.Happened(Write("w1"), "")
	if len(sent) != 1 || string(sent[0]) != Write("w1")+"\n" {
		t.Fatalf("node 2 published %q", sent)
	}
	node1.Heard(sent[0])
	if !woke(woken, 100*time.Millisecond) {
		t.Fatal("the cluster event did not wake the wait at once")
	}
}

func TestANodeWithNoWaitIsNeitherToldNorPolling(t *testing.T) {
	kv := kvtest.New()
	node1, node2 := &Hub{KV: kv}, &Hub{KV: kv, Publish: func([]byte) { t.Fatal("a cluster event for a topic nobody waits for") }}
	_, done := node1.Wait(Channel("c1"))
	if node1.Waits() != 1 {
		t.Fatalf("node 1 holds %d waits", node1.Waits())
	}
	done()
	if node1.Waits() != 0 {
		t.Fatalf("node 1 still holds %d waits", node1.Waits())
	}
	node2.Happened(Channel("c2"), "p")
	if raw, _ := kv.Get(inboxPrefix + node1.node); raw != nil {
		t.Fatalf("node 1 was told of a topic it never waited for: %s", raw)
	}
}

func TestATopicLongerThanAnyTopicHeardIsIgnored(t *testing.T) {
	h := &Hub{KV: kvtest.New()}
	long := Channel(string(make([]byte, maxTopicBytes)))
	woken, done := h.Wait(long)
	defer done()
	h.Heard([]byte(long + "\n"))
	if woke(woken, 50*time.Millisecond) {
		t.Fatal("an over-long topic was heard")
	}
}
