// Package workspace is each user's file workspace: a transfer buffer whose
// files are deleted a fixed time after they are written, the presigned
// tokens that move bytes in and out without a Mattermost credential, and the
// signed handles that the posting tools redeem.
//
// Where the bytes live. A plugin in a Mattermost cluster runs once per node,
// so nothing may live in one process's memory or on one node's disk. The
// plugin API offers two shared stores: Mattermost's file store and the
// plugin KV store. Its file store methods only read arbitrary paths
// (ReadFile) or create channel attachments (UploadFile, which needs a
// channel, creates a FileInfo visible to the channel and offers no delete):
// there is no way to write, stream or remove a private blob. So bytes live in
// the plugin KV store, cut into chunks of ChunkSize: a write streams chunk by
// chunk and a read fetches one chunk at a time, so memory stays at one chunk
// per stream whatever the file's size. Every chunk carries a KV expiry a
// little past the retention, which backs up the sweep (and removes the
// chunks of a write interrupted half way).
package workspace

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/secret"
)

const (
	// Retention is how long a file lives after it was written, by age
	// alone: reading it does not extend it.
	Retention = 24 * time.Hour
	// kvGrace is added to KV expiries so the sweep, not the expiry, is what
	// normally removes a file; the expiry only catches what the sweep missed.
	kvGrace = time.Hour
	// ChunkSize is the unit of storage and of memory while streaming: 1 MiB
	// keeps a 50 MiB file at 50 KV rows and one stream at a few MiB of
	// memory.
	ChunkSize = 1 << 20
	// writesInFlight chunks of one write are stored at once while the next
	// is read: storing waits on Mattermost and its database, so a second in
	// flight keeps both the reading and the storing busy; a write holds
	// writesInFlight+1 chunks of memory.
	writesInFlight = 2
	// MaxFiles bounds one user's index record (a few hundred bytes per
	// file), whatever the quota.
	MaxFiles = 500

	prefixIndex = "ws_i_"
	prefixChunk = "ws_c_"
	// prefixRegistry keys the shards of the registry of workspaces that
	// have files, which the sweep walks instead of listing every key.
	prefixRegistry = "ws_r_"
	// registryShards spreads the registry over this many KV records, so
	// people writing their first file at once rarely contend for one.
	registryShards = 64
	// registryShardCap bounds one shard: 2048 workspaces at about 50 bytes
	// each keep a shard near 100 KiB, and the registry holds 131,072
	// workspaces with files written within a day. Past it a write into a
	// workspace not yet registered is refused (ErrRegistryFull) rather
	// than stored where the sweep would never find it.
	registryShardCap = 2048
	// registryGrace is how long a workspace stays registered after a write
	// registered it, even while it has no index: a write registers just
	// before it creates the index, so the sweep never forgets a workspace
	// whose first file is being stored. Writes refresh registrations older
	// than half of it.
	registryGrace = time.Hour
	// registryLifetime outlives every file a registration covers.
	registryLifetime = Retention + kvGrace + registryGrace
)

// Errors callers tell apart. Their text is for logs; tools and routes say
// what to do next.
var (
	ErrNotFound    = errors.New("not found")
	ErrTooLarge    = errors.New("larger than allowed")
	ErrQuota       = errors.New("workspace quota exceeded")
	ErrTooMany     = errors.New("too many files")
	ErrPinMismatch = errors.New("sha256 does not match")
	ErrBadPin      = errors.New("sha256 is not 64 hexadecimal digits")
	ErrChanged     = errors.New("file changed while reading")
	// ErrSizeMismatch is a body shorter or longer than the size declared:
	// cut short by a client that went away, or not the file announced.
	ErrSizeMismatch = errors.New("the bytes received are not the size declared")
	// ErrExists refuses a ClaimExact write whose name is taken.
	ErrExists = errors.New("a file of that name exists")
	// ErrRegistryFull refuses a file in a workspace the registry has no
	// room for (see registryShardCap): the workspaces of the installation
	// with files written within the last day are at the bound.
	ErrRegistryFull = errors.New("the registry of workspaces is full; files expire a day after they were written")
)

// Limits are the admin's settings, read on every write.
type Limits struct {
	QuotaBytes   int64 // all of one user's files together
	MaxFileBytes int64 // one file
}

// File is one workspace file's record.
type File struct {
	Name      string    `json:"name"`
	Size      int64     `json:"size"`
	Type      string    `json:"type"` // detected from the bytes, e.g. "PNG image"
	SHA256    string    `json:"sha256"`
	WrittenAt time.Time `json:"written_at"`
	Blob      string    `json:"blob"` // random id of the chunks; never derived from the name
	Chunks    int       `json:"chunks"`
}

// ExpiresAt is when the sweep deletes the file.
func (f File) ExpiresAt() time.Time { return f.WrittenAt.Add(Retention) }

type index struct {
	Files map[string]File `json:"files"`
}

// Store is the workspaces of every user.
type Store struct {
	kv     kvstore.KV
	limits func() Limits
	// Now is the clock; tests replace it.
	Now func() time.Time

	secret *secret.Shared
	// slots bounds concurrent redemptions in this process.
	slots chan struct{}
}

// New returns the store over the plugin KV store.
func New(kv kvstore.KV, limits func() Limits) *Store {
	return &Store{kv: kv, limits: limits, Now: time.Now, slots: make(chan struct{}, RedeemSlots),
		secret: &secret.Shared{KV: kv, Name: keySecret}}
}

func indexKey(space string) string { return prefixIndex + space }

func chunkKey(blob string, i int) string { return prefixChunk + blob + "_" + strconv.Itoa(i) }

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func (s *Store) load(space string) (index, []byte, error) {
	raw, err := s.kv.Get(indexKey(space))
	if err != nil {
		return index{}, nil, err
	}
	idx, err := parseIndex(raw)
	return idx, raw, err
}

// parseIndex reads a stored index (nil: an empty one).
func parseIndex(raw []byte) (index, error) {
	idx := index{Files: map[string]File{}}
	if raw != nil {
		if err := json.Unmarshal(raw, &idx); err != nil {
			return index{}, fmt.Errorf("workspace index is corrupt: %w", err)
		}
		if idx.Files == nil {
			idx.Files = map[string]File{}
		}
	}
	return idx, nil
}

// update applies change to a user's index atomically against other nodes.
// The index outlives its newest file by kvGrace; an empty one is removed.
func (s *Store) update(space string, change func(idx *index) error) error {
	err := kvstore.Update(s.kv, indexKey(space), func(raw []byte) (kvstore.Change, error) {
		idx, err := parseIndex(raw)
		if err != nil {
			return kvstore.Change{}, err
		}
		if err := change(&idx); err != nil {
			return kvstore.Change{}, err
		}
		if len(idx.Files) == 0 {
			return kvstore.Change{}, nil
		}
		next, err := json.Marshal(idx)
		return kvstore.Change{Value: next, TTL: Retention + kvGrace}, err
	})
	if errors.Is(err, kvstore.ErrContended) {
		return fmt.Errorf("the workspace index: %w", err)
	}
	return err
}

func (s *Store) live(f File) bool { return s.Now().Before(f.ExpiresAt()) }

// List returns the caller's files, by name.
func (s *Store) List(userID string) ([]File, error) {
	idx, _, err := s.load(spaceOf(userID))
	if err != nil {
		return nil, err
	}
	out := make([]File, 0, len(idx.Files))
	for _, f := range idx.Files {
		if s.live(f) {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Usage is the bytes the caller's files take.
func (s *Store) Usage(userID string) (int64, error) {
	files, err := s.List(userID)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, f := range files {
		n += f.Size
	}
	return n, nil
}

// Stat returns one file's record; another user's file, a missing one and an
// expired one are all ErrNotFound.
func (s *Store) Stat(userID, name string) (File, error) {
	ref, err := resolve(userID, name)
	if err != nil {
		return File{}, err
	}
	idx, _, err := s.load(ref.space)
	if err != nil {
		return File{}, err
	}
	f, ok := idx.Files[ref.name]
	if !ok || !s.live(f) {
		return File{}, ErrNotFound
	}
	return f, nil
}

// Open streams a file's bytes one chunk at a time.
func (s *Store) Open(userID, name string) (File, io.ReadCloser, error) {
	f, err := s.Stat(userID, name)
	if err != nil {
		return File{}, nil, err
	}
	return f, &chunkReader{kv: s.kv, f: f}, nil
}

type chunkReader struct {
	kv   kvstore.KV
	f    File
	next int
	buf  []byte
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.next >= c.f.Chunks {
			return 0, io.EOF
		}
		data, err := c.kv.Get(chunkKey(c.f.Blob, c.next))
		if err != nil {
			return 0, err
		}
		if data == nil {
			return 0, ErrChanged
		}
		c.buf = data
		c.next++
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

func (c *chunkReader) Close() error { c.buf = nil; return nil }

// ReadAll reads a whole file when it is at most max bytes, checking its
// bytes against the sha256 recorded when it was written.
func (s *Store) ReadAll(userID, name string, max int64) (File, []byte, error) {
	f, rc, err := s.Open(userID, name)
	if err != nil {
		return File{}, nil, err
	}
	defer rc.Close()
	if f.Size > max {
		return f, nil, ErrTooLarge
	}
	// Exactly one allocation of the recorded size: a growing buffer would
	// briefly hold twice the file.
	data := make([]byte, f.Size)
	if _, err := io.ReadFull(rc, data); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return f, nil, ErrChanged
		}
		return f, nil, err
	}
	if n, _ := rc.Read(make([]byte, 1)); n != 0 {
		return f, nil, ErrChanged
	}
	got := sha256.Sum256(data)
	if hex.EncodeToString(got[:]) != f.SHA256 {
		return f, nil, ErrChanged
	}
	return f, data, nil
}

// Delete removes one of the caller's files.
func (s *Store) Delete(userID, name string) error {
	ref, err := resolve(userID, name)
	if err != nil {
		return err
	}
	var gone File
	err = s.update(ref.space, func(idx *index) error {
		f, ok := idx.Files[ref.name]
		if !ok || !s.live(f) {
			return ErrNotFound
		}
		gone = f
		delete(idx.Files, ref.name)
		return nil
	})
	if err != nil {
		return err
	}
	s.deleteBlob(gone.Blob, gone.Chunks)
	return nil
}
