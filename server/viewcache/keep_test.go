package viewcache

import (
	"testing"
	"time"
)

// gatedKV is a store whose writes wait until the gate is opened.
type gatedKV struct {
	*memKV
	gate chan struct{}
}

func (k gatedKV) Set(key string, v []byte, ttl time.Duration) error {
	<-k.gate
	return k.memKV.Set(key, v, ttl)
}

func TestAKeepAfterTheAnswerIsFoundHereAtOnceAndInTheStoreOnceWritten(t *testing.T) {
	store := &memKV{m: map[string][]byte{}}
	kv := gatedKV{memKV: store, gate: make(chan struct{})}
	c := &Cache{KV: kv}
	text := longText(t, 3000)
	k := Key{Source: "attachment", ID: "f1"}
	done := make(chan error, 1)
	if !c.KeepLater("alice", k, text, func(err error) { done <- err }) {
		t.Fatal("the first keep was skipped")
	}
	// The store has nothing yet; this process finds the text already.
	if got, ok := c.Get(k); !ok || got.Body != text.Body {
		t.Fatal("this process does not find the text while it is being written")
	}
	if raw, _ := store.Get(StoredKey(k)); raw != nil {
		t.Fatal("the store had the text before it was written")
	}
	close(kv.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	c.Wait()
	other := &Cache{KV: store} // another node
	if got, ok := other.Get(k); !ok || got.Body != text.Body {
		t.Fatal("another node does not find the text once it is written")
	}
}

func TestPastMaxKeepsInFlightAFirstWindowKeepsNothingAndQueuesNothing(t *testing.T) {
	store := &memKV{m: map[string][]byte{}}
	kv := gatedKV{memKV: store, gate: make(chan struct{})}
	c := &Cache{KV: kv}
	text := longText(t, 3000)
	finished := make(chan struct{}, MaxKeepsInFlight+1)
	for i := range MaxKeepsInFlight {
		if !c.KeepLater("alice", Key{Source: "attachment", ID: string(rune('a' + i))}, text, func(error) { finished <- struct{}{} }) {
			t.Fatalf("keep %d of %d was skipped", i+1, MaxKeepsInFlight)
		}
	}
	past := Key{Source: "attachment", ID: "past"}
	if c.KeepLater("alice", past, text, func(error) { t.Error("a skipped keep called done") }) {
		t.Fatal("a keep past the bound was started")
	}
	if _, ok := c.Get(past); ok {
		t.Fatal("a skipped keep was kept in this process")
	}
	close(kv.gate)
	c.Wait()
	if len(finished) != MaxKeepsInFlight {
		t.Fatalf("%d keeps finished, want %d", len(finished), MaxKeepsInFlight)
	}
	// Once they are written there is room again.
	if !c.KeepLater("alice", past, text, func(error) {}) {
		t.Fatal("no room once the keeps were written")
	}
	c.Wait()
}
