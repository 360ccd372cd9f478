package wake

import (
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
)

// woke reports whether ch receives within d.
func woke(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

func TestAWaitIsWokenByWhatHappenedOnItsOwnNodeAndNotByAnotherTopic(t *testing.T) {
	h := &Hub{KV: kvtest.New()}
	woken, done := h.Wait(Channel("town"))
	defer done()
	other, doneOther := h.Wait(Channel("offtopic"))
	defer doneOther()
	h.Happened(Channel("town"))
	if !woke(woken, time.Second) {
		t.Fatal("the wait was not woken by a post in its channel")
	}
	if woke(other, 50*time.Millisecond) {
		t.Fatal("a wait for another channel was woken")
	}
	// Woken again by a later post, once it looked.
	h.Happened(Channel("town"))
	if !woke(woken, time.Second) {
		t.Fatal("the wait was not woken a second time")
	}
}

func TestAWaitOnOneNodeIsWokenThroughTheKVStoreByWhatHappenedOnAnotherWithoutClusterEvents(t *testing.T) {
	kv := kvtest.New()
	node1, node2 := &Hub{KV: kv}, &Hub{KV: kv}
	woken, done := node1.Wait(FileRequest("r1"))
	defer done()
	started := time.Now()
	node2.Happened(FileRequest("r1"))
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
	node2.Happened(Write("w1"))
	if len(sent) != 1 || string(sent[0]) != Write("w1") {
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
	node2.Happened(Channel("c2"))
	if raw, _ := kv.Get(inboxPrefix + node1.node); raw != nil {
		t.Fatalf("node 1 was told of a topic it never waited for: %s", raw)
	}
}

func TestATopicLongerThanAnyTopicHeardIsIgnored(t *testing.T) {
	h := &Hub{KV: kvtest.New()}
	long := Channel(string(make([]byte, maxTopicBytes)))
	woken, done := h.Wait(long)
	defer done()
	h.Heard([]byte(long))
	if woke(woken, 50*time.Millisecond) {
		t.Fatal("an over-long topic was heard")
	}
}
