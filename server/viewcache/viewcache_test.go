package viewcache

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
)

type memKV struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (k *memKV) Get(key string) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.m[key], nil
}

func (k *memKV) Set(key string, v []byte, _ time.Duration) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[key] = append([]byte(nil), v...)
	return nil
}

func (k *memKV) CompareAndSet(key string, old, v []byte, _ time.Duration) (bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if cur, ok := k.m[key]; (old == nil && ok) || (old != nil && !bytes.Equal(cur, old)) {
		return false, nil
	}
	k.m[key] = append([]byte(nil), v...)
	return true, nil
}

func (k *memKV) Delete(key string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, key)
	return nil
}

// The rest of kvstore.KV, which the cache does not use.
func (k *memKV) SetIfAbsent(string, []byte, time.Duration) (bool, error) {
	return false, errors.New("not used by the cache")
}
func (k *memKV) CompareAndDelete(string, []byte) (bool, error) {
	return false, errors.New("not used by the cache")
}
func (k *memKV) ListKeys(string, int, int) ([]string, bool, error) {
	return nil, false, errors.New("not used by the cache")
}

func (k *memKV) bytes() int {
	n := 0
	for _, v := range k.m {
		n += len(v)
	}
	return n
}

func longText(t *testing.T, lines int) *fileview.Text {
	t.Helper()
	var b strings.Builder
	for i := 0; i < lines; i++ {
		b.WriteString("a line of a long document, number ")
		b.WriteString(strings.Repeat("z", i%50))
		b.WriteString("\n")
	}
	v, err := fileview.Convert(context.Background(), []byte(b.String()), fileview.Request{Name: "long.txt"})
	if err != nil || v.Whole == nil {
		t.Fatalf("convert: %v", err)
	}
	return v.Whole
}

func TestASecondWindowIsCutFromTheKeptTextOnAnyNode(t *testing.T) {
	kv := &memKV{m: map[string][]byte{}}
	text := longText(t, 60000) // about 3.5 MB: several chunks
	k := Key{Source: "attachment", ID: "file1"}
	if _, ok := (&Cache{KV: kv}).Get(k); ok {
		t.Fatal("a text was kept before any read")
	}
	if err := (&Cache{KV: kv}).Put("alice", k, text); err != nil {
		t.Fatal(err)
	}
	other := &Cache{KV: kv} // another node's cache over the same store
	got, ok := other.Get(k)
	if !ok || got.Body != text.Body || got.Kind != text.Kind || got.Size != text.Size {
		t.Fatal("the kept text did not come back whole")
	}
	req := fileview.Request{Name: "long.txt", Offset: 501, Limit: 500}
	a, _ := text.Window(context.Background(), req)
	b, _ := got.Window(context.Background(), req)
	if a.Header != b.Header || a.Text != b.Text {
		t.Fatal("the window cut from the kept text differs")
	}
	if kv.bytes() > len(text.Body)/3 {
		t.Fatalf("the kept text takes %d bytes of the store for %d of text", kv.bytes(), len(text.Body))
	}
}

func TestAnotherConverterVersionOrFileMisses(t *testing.T) {
	kv := &memKV{m: map[string][]byte{}}
	c := &Cache{KV: kv}
	if err := c.Put("alice", Key{Source: "attachment", ID: "file1"}, longText(t, 10)); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(Key{Source: "attachment", ID: "file2"}); ok {
		t.Fatal("another file hit")
	}
	if _, ok := c.Get(Key{Source: "workspace", ID: "file1"}); ok {
		t.Fatal("another source hit")
	}
	// What an older converter kept is under another key: a text kept as
	// version "0" is not found by this version.
	k := Key{Source: "attachment", ID: "file3"}
	if err := c.Put("alice", k, longText(t, 10)); err != nil {
		t.Fatal(err)
	}
	for key, v := range kv.m {
		if strings.HasPrefix(key, keyPrefix+k.hash()) {
			delete(kv.m, key)
			kv.m[strings.Replace(key, k.hash(), k.hashAt("0"), 1)] = v
		}
	}
	if _, ok := (&Cache{KV: kv}).Get(k); ok { // another node: no local copy
		t.Fatal("a text kept by another converter version hit")
	}
}

func TestATextOverTheCapIsNotKeptAndAPersonKeepsAtMostTheirShare(t *testing.T) {
	kv := &memKV{m: map[string][]byte{}}
	c := &Cache{KV: kv}
	huge := &fileview.Text{Kind: fileview.KindText, Body: strings.Repeat("x", MaxTextBytes+1)}
	if err := c.Put("alice", Key{Source: "attachment", ID: "huge"}, huge); err != nil || len(kv.m) != 0 {
		t.Fatalf("a text over the cap was kept: %v, %d keys", err, len(kv.m))
	}
	small := longText(t, 5)
	for i := 0; i < PerPerson+3; i++ {
		if err := c.Put("alice", Key{Source: "attachment", ID: string(rune('a' + i))}, small); err != nil {
			t.Fatal(err)
		}
	}
	kept := 0
	for i := 0; i < PerPerson+3; i++ {
		if _, ok := c.Get(Key{Source: "attachment", ID: string(rune('a' + i))}); ok {
			kept++
		}
	}
	if kept != PerPerson {
		t.Fatalf("alice keeps %d texts, want %d", kept, PerPerson)
	}
	if _, ok := c.Get(Key{Source: "attachment", ID: "a"}); ok {
		t.Fatal("the oldest was kept, not dropped")
	}
}

func TestAMissingChunkIsAMissNotABrokenText(t *testing.T) {
	kv := &memKV{m: map[string][]byte{}}
	c := &Cache{KV: kv}
	k := Key{Source: "attachment", ID: "file1"}
	if err := c.Put("alice", k, longText(t, 60000)); err != nil {
		t.Fatal(err)
	}
	_ = kv.Delete(chunkKey(k.hash(), 0))
	if _, ok := (&Cache{KV: kv}).Get(k); ok { // another node: no local copy
		t.Fatal("a text with a chunk gone came back")
	}
}

func TestTheNodeThatKeptATextCutsTheNextWindowWithoutTheStoreAndHoldsAtMostItsShare(t *testing.T) {
	kv := &memKV{m: map[string][]byte{}}
	c := &Cache{KV: kv}
	k := Key{Source: "attachment", ID: "file1"}
	text := longText(t, 2000)
	if err := c.Put("alice", k, text); err != nil {
		t.Fatal(err)
	}
	for key := range kv.m {
		if strings.HasPrefix(key, keyPrefix+k.hash()+"_") {
			delete(kv.m, key) // the chunks: only the record stays in the store
		}
	}
	if got, ok := c.Get(k); !ok || got.Body != text.Body {
		t.Fatal("the node that kept the text read the store for its body")
	}
	r := &recent{max: 1000}
	for i := 0; i < 10; i++ {
		r.put(string(rune('a'+i)), &fileview.Text{Body: strings.Repeat("x", 300)})
	}
	if r.size > r.max || len(r.byKey) != 3 {
		t.Fatalf("the local copy holds %d bytes in %d texts, at most %d", r.size, len(r.byKey), r.max)
	}
	if _, ok := r.get("a"); ok {
		t.Fatal("the least recently used text was kept")
	}
}

func TestTheSameBytesOfAnotherPersonOrUnderAnotherNameAreNotTheKeptText(t *testing.T) {
	kv := &memKV{m: map[string][]byte{}}
	c := &Cache{KV: kv}
	alices := Key{Source: "workspace", ID: "sha-of-the-bytes", Owner: "alice", Name: "alice-secret-plan.png"}
	if err := c.Put("alice", alices, longText(t, 2000)); err != nil {
		t.Fatal(err)
	}
	if _, ok := (&Cache{KV: kv}).Open(alices); !ok {
		t.Fatal("alice's own next window missed her kept text")
	}
	for _, k := range []Key{
		{Source: "workspace", ID: "sha-of-the-bytes", Owner: "bob", Name: "alice-secret-plan.png"},
		{Source: "workspace", ID: "sha-of-the-bytes", Owner: "bob", Name: "notes.png"},
		{Source: "workspace", ID: "sha-of-the-bytes", Owner: "alice", Name: "renamed.txt"},
	} {
		if _, ok := c.Open(k); ok {
			t.Errorf("%+v read alice's kept text", k)
		}
	}
}
