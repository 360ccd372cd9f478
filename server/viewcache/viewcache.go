// Package viewcache keeps the whole text of files already converted (the
// text a windowed view is cut from), in the plugin KV store every node
// sees, so that paging through a long file converts it once: the second
// window is cut from the kept text without fetching or converting the file.
//
// An attachment is immutable by its id and a workspace file's bytes by
// their sha256, so a kept text never goes stale; the converter's version is
// part of the key, so a new converter misses instead of reusing old output.
// What a conversion makes of the file's name (the kind of text it reads as,
// the "its name says X, its bytes are Y" note) is kept with the text, so a
// file named by its bytes is keyed by its owner and its name as well: one
// person's kept text never answers another's read. The caller checks the
// person's access to the file before asking the cache.
package viewcache

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

const (
	// MaxTextBytes: the most text fileview extracts from one Office file
	// (fileview.MaxExtractedTextBytes), so any document's text can be kept;
	// a longer plain text file is converted again for every window rather
	// than held whole on every read of it.
	MaxTextBytes = fileview.MaxExtractedTextBytes
	// chunkBytes: the stored (compressed) text is split into 1 MiB values,
	// the size the workspace uses too, well under any database's row limit.
	chunkBytes = 1 << 20
	// Lifetime: a person reading a long file pages through it within minutes;
	// half an hour keeps it for a pause and then frees the store.
	Lifetime = 30 * time.Minute
	// PerPerson: the kept texts one person's reads have added; the oldest is
	// dropped for the next, so one person keeps at most 8 x 16 MiB of text
	// (about a quarter of that once compressed) in the store.
	PerPerson = 8
	// LocalBytes: each process also keeps the texts it read or made most
	// recently, decoded, up to 16 MiB (a long document or a few shorter
	// ones being paged at once), so the next window on the same node reads
	// and decodes nothing.
	LocalBytes = 16 << 20
	// MaxKeepsInFlight bounds the texts one process keeps after their
	// answer has gone (KeepLater): each holds its text and its compressed
	// copy until the store has them. Past it a first window is answered
	// without keeping its text (its next window converts again), so a flood
	// of first windows cannot queue unbounded work; two cores compress and
	// write four texts of a few MiB in well under a second.
	MaxKeepsInFlight = 4
	keyPrefix        = "fvc_"
)

// Key names a converted file: its kind of source ("attachment",
// "workspace") and the id that fixes its bytes (a file id, a sha256). For
// an id that fixes only the bytes (a sha256), Owner and Name are whose file
// it is and the name it is read under: a conversion reads the name, so the
// same bytes of another person or under another name are another text.
type Key struct {
	Source, ID  string
	Owner, Name string
}

func (k Key) hash() string { return k.hashAt(fileview.Version) }

// hashAt is the key of the file's text as a converter version made it.
func (k Key) hashAt(version string) string {
	sum := sha256.Sum256([]byte(version + "\x00" + k.Source + "\x00" + k.ID + "\x00" + k.Owner + "\x00" + k.Name))
	return hex.EncodeToString(sum[:16])
}

// Cache is the kept texts.
type Cache struct {
	KV kvstore.KV

	once     sync.Once
	recent   *recent
	inFlight chan struct{} // a token per keep being written (KeepLater)
	keeping  sync.WaitGroup
}

func (c *Cache) local() *recent {
	c.setUp()
	return c.recent
}

func (c *Cache) setUp() {
	c.once.Do(func() {
		c.recent = &recent{max: LocalBytes}
		c.inFlight = make(chan struct{}, MaxKeepsInFlight)
	})
}

// KeepLater keeps a text as Put does, in the background: the read that
// converted it answers without waiting for the store. The process's own
// copy is kept at once, so the next window on this node finds it; the
// store, which every node reads, has it once the keep is written. When
// MaxKeepsInFlight keeps are already being written it keeps nothing and
// answers false; otherwise done is called with the keep's outcome once it
// is over (to give back the memory the caller set aside for it).
func (c *Cache) KeepLater(userID string, k Key, t *fileview.Text, done func(error)) bool {
	if t == nil || len(t.Body) > MaxTextBytes {
		return false
	}
	c.setUp()
	select {
	case c.inFlight <- struct{}{}:
	default:
		return false
	}
	c.local().put(k.hash(), t)
	c.keeping.Add(1)
	go func() {
		defer c.keeping.Done()
		err := c.Put(userID, k, t)
		<-c.inFlight
		done(err)
	}()
	return true
}

// Wait returns once every keep started before it is written: the plugin
// waits for them before it stops, and tests before they read the store.
func (c *Cache) Wait() { c.keeping.Wait() }

// StoredKey is the KV key of a file's kept text, for reading the store
// from outside (the end-to-end tests wait for a kept text by it).
func StoredKey(k Key) string { return keyPrefix + k.hash() }

// KeepBytes is the memory keeping a text of n bytes holds until it is
// written: the text itself (the read that made it has given its memory
// back), its compressed copy (at most about the text's size, for text that
// does not compress) and the compressor's state.
func KeepBytes(n int) int64 { return 2*int64(n) + 1<<20 }

// meta is a kept text's record: its header facts and where its body is.
// The body is stored as compressed bytes, not JSON, so reading it back is
// one decompression (JSON-decoding megabytes of string took most of a hit).
type meta struct {
	Chunks int            `json:"n"`
	Bytes  int            `json:"b"`
	Text   *fileview.Text `json:"t"`
}

// Entry is a kept text found in the store, before its body is read.
type Entry struct {
	c    *Cache
	h    string
	m    meta
	text *fileview.Text // this process's own copy, when it has one
}

// Bytes is the length of the kept text: what holding it costs, known
// before it is read.
func (e *Entry) Bytes() int { return e.m.Bytes }

// Open finds the kept text of a file, if there is one.
func (c *Cache) Open(k Key) (*Entry, bool) {
	h := k.hash()
	if t, ok := c.local().get(h); ok {
		return &Entry{c: c, h: h, m: meta{Bytes: len(t.Body)}, text: t}, true
	}
	raw, err := c.KV.Get(keyPrefix + h)
	if err != nil || raw == nil {
		return nil, false
	}
	var m meta
	if json.Unmarshal(raw, &m) != nil || m.Text == nil || m.Chunks < 1 || m.Bytes < 0 || m.Bytes > MaxTextBytes {
		return nil, false
	}
	return &Entry{c: c, h: h, m: m}, true
}

// Text reads the kept text's body. The text may be shared with other
// callers: it must not be changed.
func (e *Entry) Text() (*fileview.Text, bool) {
	if e.text != nil {
		return e.text, true
	}
	var packed bytes.Buffer
	for i := 0; i < e.m.Chunks; i++ {
		part, err := e.c.KV.Get(chunkKey(e.h, i))
		if err != nil || part == nil {
			return nil, false // expired in between: convert again
		}
		packed.Write(part)
	}
	zr, err := gzip.NewReader(&packed)
	if err != nil {
		return nil, false
	}
	var body strings.Builder
	body.Grow(e.m.Bytes)
	if n, err := io.Copy(&body, io.LimitReader(zr, int64(e.m.Bytes)+1)); err != nil || n != int64(e.m.Bytes) {
		return nil, false
	}
	t := *e.m.Text
	t.Body = body.String()
	e.c.local().put(e.h, &t)
	return &t, true
}

// Get is the kept text of a file, if there is one.
func (c *Cache) Get(k Key) (*fileview.Text, bool) {
	e, ok := c.Open(k)
	if !ok {
		return nil, false
	}
	return e.Text()
}

// Put keeps a text for the file, counted against the person whose read
// converted it. A text over MaxTextBytes is not kept.
func (c *Cache) Put(userID string, k Key, t *fileview.Text) error {
	if t == nil || len(t.Body) > MaxTextBytes {
		return nil
	}
	var packed bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&packed, gzip.BestSpeed)
	if _, err := io.WriteString(zw, t.Body); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	head := *t
	head.Body = ""
	h := k.hash()
	data := packed.Bytes()
	n := 0
	for off := 0; off < len(data); off += chunkBytes {
		if err := c.KV.Set(chunkKey(h, n), data[off:min(off+chunkBytes, len(data))], Lifetime); err != nil {
			return fmt.Errorf("keep a converted text: %w", err)
		}
		n++
	}
	m := meta{Chunks: n, Bytes: len(t.Body), Text: &head}
	raw, _ := json.Marshal(m)
	if err := c.KV.Set(keyPrefix+h, raw, Lifetime); err != nil {
		return fmt.Errorf("keep a converted text: %w", err)
	}
	c.local().put(h, t)
	return c.count(userID, h)
}

func chunkKey(h string, i int) string { return fmt.Sprintf("%s%s_%d", keyPrefix, h, i) }

// count adds h to the person's kept texts, dropping the oldest beyond
// PerPerson.
func (c *Cache) count(userID, h string) error {
	sum := sha256.Sum256([]byte("viewcache:" + userID))
	key := keyPrefix + "u_" + hex.EncodeToString(sum[:16])
	var dropped []string
	err := kvstore.Update(c.KV, key, func(raw []byte) (kvstore.Change, error) {
		var kept []string
		if raw != nil {
			_ = json.Unmarshal(raw, &kept)
		}
		next := []string{}
		for _, k := range kept {
			if k != h {
				next = append(next, k)
			}
		}
		next = append(next, h)
		dropped = nil
		if len(next) > PerPerson {
			dropped, next = next[:len(next)-PerPerson], next[len(next)-PerPerson:]
		}
		val, _ := json.Marshal(next)
		return kvstore.Change{Value: val, TTL: Lifetime}, nil
	})
	if err != nil {
		return fmt.Errorf("the list of kept texts: %w", err)
	}
	for _, d := range dropped {
		c.drop(d)
	}
	return nil
}

// drop removes a kept text; its chunks go with their lifetime if the meta
// record cannot be read.
func (c *Cache) drop(h string) {
	c.local().remove(h)
	raw, err := c.KV.Get(keyPrefix + h)
	_ = c.KV.Delete(keyPrefix + h)
	var m meta
	if err != nil || raw == nil || json.Unmarshal(raw, &m) != nil {
		return
	}
	for i := 0; i < m.Chunks && i < 2*MaxTextBytes/chunkBytes; i++ {
		_ = c.KV.Delete(chunkKey(h, i))
	}
}
