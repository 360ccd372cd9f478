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
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
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

// WriteOptions narrow one write.
type WriteOptions struct {
	// MaxSize lowers the largest-file setting for this write (0: the setting).
	MaxSize int64
	// SHA256 pins the bytes: a write whose bytes hash otherwise is refused.
	SHA256 string
	// Size, when set, is the exact length the sender declared (the
	// Content-Length, the size authorized, the size the page said): a body
	// that ends short of it or runs past it is refused with
	// ErrSizeMismatch and nothing is kept. Mattermost's plugin bridge ends
	// a body whose client went away with a clean EOF, so this is the only
	// way to tell a cut-short file from a whole one.
	Size *int64
	// Claim says how the name is taken (the zero value replaces).
	Claim Claim

	// beforeStore runs once the bytes are whole, just before the index
	// change that makes them a file: an error there keeps nothing (a
	// presigned upload spends its token here). afterFailedStore runs when
	// that index change then fails (the token is given back).
	beforeStore      func() error
	afterFailedStore func()
}

// Claim is how a write takes its name.
type Claim int

const (
	// ClaimReplace writes under name, replacing a file of that name once
	// the new one is complete.
	ClaimReplace Claim = iota
	// ClaimFree writes under name or, when that is taken, the first free
	// "stem (n).ext", chosen in the same index update that stores the
	// file, so it never replaces one; File.Name is the name claimed.
	ClaimFree
	// ClaimExact writes under name only if no live file has it
	// (ErrExists otherwise).
	ClaimExact
)

// Exactly is a Size of n bytes.
func Exactly(n int64) *int64 { return &n }

// SizeError is a body that was not the size declared; it is
// ErrSizeMismatch. Received is Declared+1 for a body that ran past it (no
// more is read). Refused is set when the request declared a length other
// than the one its upload was granted for (Received is then that length),
// refused before a byte was read.
type SizeError struct {
	Received, Declared int64
	Refused            bool
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("%v: %d bytes received, %d declared", ErrSizeMismatch, e.Received, e.Declared)
}

// Is makes a SizeError match ErrSizeMismatch.
func (e *SizeError) Is(target error) bool { return target == ErrSizeMismatch }

// Long reports a body that ran past the size declared.
func (e *SizeError) Long() bool { return !e.Refused && e.Received > e.Declared }

// Sentence says what happened for a person or a client, to which the
// caller adds what to do next.
func (e *SizeError) Sentence() string {
	if e.Refused {
		return fmt.Sprintf("The request declares %s bytes; this upload takes exactly %s. Nothing was stored.", Grouped(e.Received), Grouped(e.Declared))
	}
	if e.Long() {
		return fmt.Sprintf("The upload ran past the %s bytes it declared; nothing was kept.", Grouped(e.Declared))
	}
	return fmt.Sprintf("The upload stopped after %s of %s bytes; nothing was kept.", Grouped(e.Received), Grouped(e.Declared))
}

// Grouped writes n with its thousands separated by commas (819,200), as a
// person reads a count of bytes.
func Grouped(n int64) string {
	digits := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}

// Write streams r into the caller's workspace under name (or, with
// ClaimFree, the name it claims), replacing a file of that name only once
// the new one is complete and only with ClaimReplace. Nothing is kept of a
// refused write.
func (s *Store) Write(ctx context.Context, userID, name string, r io.Reader, opts WriteOptions) (File, error) {
	ref, err := resolve(userID, name)
	if err != nil {
		return File{}, err
	}
	limits := s.limits()
	fileCap := limits.MaxFileBytes
	if opts.MaxSize > 0 && opts.MaxSize < fileCap {
		fileCap = opts.MaxSize
	}
	if opts.Size != nil {
		switch {
		case *opts.Size < 0:
			return File{}, &SizeError{Received: 0, Declared: *opts.Size}
		case *opts.Size > fileCap:
			return File{}, ErrTooLarge
		}
		// A longer body is told by one byte past the size: no more is read.
		r = io.LimitReader(r, *opts.Size+1)
	}
	idx, _, err := s.load(ref.space)
	if err != nil {
		return File{}, err
	}
	old, exists := idx.Files[ref.name]
	replacing := exists && opts.Claim == ClaimReplace
	if exists && opts.Claim == ClaimExact && s.live(old) {
		return File{}, ErrExists
	}
	if !replacing && len(idx.Files) >= MaxFiles {
		return File{}, ErrTooMany
	}
	except := ""
	if replacing {
		except = ref.name
	}
	quotaLeft := limits.QuotaBytes - usedExcept(idx, except, s.live)
	if opts.Size != nil && *opts.Size > quotaLeft {
		return File{}, ErrQuota
	}

	blob, err := randomHex(16)
	if err != nil {
		return File{}, err
	}
	f := File{Name: ref.name, Blob: blob}
	sum := sha256.New()
	if err := s.writeChunks(ctx, &f, r, sum, min(fileCap, quotaLeft), opts.Size); err != nil {
		s.deleteBlob(f.Blob, f.Chunks)
		switch {
		case errors.Is(err, ErrTooLarge) && quotaLeft < fileCap:
			return File{}, ErrQuota
		}
		return File{}, err
	}
	if opts.Size != nil && f.Size != *opts.Size {
		s.deleteBlob(f.Blob, f.Chunks)
		return File{}, &SizeError{Received: f.Size, Declared: *opts.Size}
	}
	f.SHA256 = hex.EncodeToString(sum.Sum(nil))
	if opts.SHA256 != "" && !hexEqual(opts.SHA256, f.SHA256) {
		s.deleteBlob(f.Blob, f.Chunks)
		return File{}, ErrPinMismatch
	}
	f.WrittenAt = s.Now().UTC()
	// A client gone while the last chunk was stored keeps nothing either.
	if err := ctx.Err(); err != nil {
		s.deleteBlob(f.Blob, f.Chunks)
		return File{}, err
	}
	if opts.beforeStore != nil {
		if err := opts.beforeStore(); err != nil {
			s.deleteBlob(f.Blob, f.Chunks)
			return File{}, err
		}
	}

	// Registered before the index is written, so that the sweep finds it.
	if err := s.register(ref.space); err != nil {
		s.deleteBlob(f.Blob, f.Chunks)
		return File{}, err
	}
	var replaced *File
	err = s.update(ref.space, func(idx *index) error {
		replaced = nil
		// The name is claimed against the index as it is now, in the same
		// change that stores the file: another write may have taken it.
		claimed, err := claimName(*idx, ref.name, opts.Claim, s.live)
		if err != nil {
			return err
		}
		old, exists := idx.Files[claimed]
		if !exists && len(idx.Files) >= MaxFiles {
			return ErrTooMany
		}
		// Checked again against the index as it is now: another node may
		// have written in between.
		if usedExcept(*idx, claimed, s.live)+f.Size > limits.QuotaBytes {
			return ErrQuota
		}
		if exists {
			replaced = &old
		}
		f.Name = claimed
		idx.Files[claimed] = f
		return nil
	})
	if err != nil {
		s.deleteBlob(f.Blob, f.Chunks)
		if opts.afterFailedStore != nil {
			opts.afterFailedStore()
		}
		return File{}, err
	}
	if replaced != nil {
		s.deleteBlob(replaced.Blob, replaced.Chunks)
	}
	return f, nil
}

// claimName is the name a write takes in idx. Only ClaimReplace takes a
// live file's name; an expired file not yet swept gives its name up.
func claimName(idx index, name string, claim Claim, live func(File) bool) (string, error) {
	taken := func(n string) bool {
		f, ok := idx.Files[n]
		return ok && live(f)
	}
	switch claim {
	case ClaimReplace:
		return name, nil
	case ClaimExact:
		if taken(name) {
			return "", ErrExists
		}
		return name, nil
	}
	// MaxFiles+1 candidates: at most MaxFiles of them are taken.
	for n := 1; n <= MaxFiles+1; n++ {
		try := numbered(name, n)
		if try != "" && !taken(try) {
			return try, nil
		}
	}
	return "", ErrTooMany
}

// numbered is name for n = 1 and "stem (n).ext" after, its stem cut to
// keep it within MaxNameBytes; "" when that is no valid name.
func numbered(name string, n int) string {
	if n == 1 {
		return name
	}
	ext := path.Ext(name)
	for _, double := range []string{".tar.gz", ".tar.bz2"} {
		if strings.HasSuffix(strings.ToLower(name), double) {
			ext = name[len(name)-len(double):]
		}
	}
	if len(ext) > 16 || ext == name {
		ext = ""
	}
	stem := strings.TrimSuffix(name, ext)
	suffix := fmt.Sprintf(" (%d)", n)
	if over := len(stem) + len(suffix) + len(ext) - MaxNameBytes; over > 0 {
		if over >= len(stem) {
			return ""
		}
		stem = strings.ToValidUTF8(stem[:len(stem)-over], "")
	}
	try := stem + suffix + ext
	if CheckName(try) != nil {
		return ""
	}
	return try
}

func usedExcept(idx index, name string, live func(File) bool) int64 {
	var n int64
	for k, f := range idx.Files {
		if k != name && live(f) {
			n += f.Size
		}
	}
	return n
}

func hexEqual(a, b string) bool {
	x, err1 := hex.DecodeString(a)
	y, err2 := hex.DecodeString(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// writeChunks stores r chunk by chunk, refusing past limit bytes and, when
// exact is set, past exact bytes. f.Chunks counts what was stored, so a
// failure can be cleaned up.
func (s *Store) writeChunks(ctx context.Context, f *File, r io.Reader, sum hash.Hash, limit int64, exact *int64) error {
	if limit < 0 {
		limit = 0
	}
	// Chunks are stored while the next is read, writesInFlight at a time,
	// each in a buffer of its own that comes back when it is stored.
	bufs := make(chan []byte, writesInFlight+1)
	for range writesInFlight + 1 {
		bufs <- make([]byte, ChunkSize)
	}
	var stored sync.WaitGroup
	var mu sync.Mutex
	var setErr error
	failed := func() error {
		mu.Lock()
		defer mu.Unlock()
		return setErr
	}
	// Every chunk sent is stored or failed before the write answers, so
	// f.Chunks counts all a cleanup must delete.
	defer stored.Wait()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := failed(); err != nil {
			return err
		}
		buf := <-bufs
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if exact != nil && f.Size+int64(n) > *exact {
				return &SizeError{Received: *exact + 1, Declared: *exact}
			}
			if f.Size+int64(n) > limit {
				return ErrTooLarge
			}
			if f.Chunks == 0 {
				_, f.Type, _ = fileview.Sniff(buf[:n], f.Name)
			}
			sum.Write(buf[:n])
			key := chunkKey(f.Blob, f.Chunks)
			f.Chunks++
			f.Size += int64(n)
			stored.Add(1)
			go func(chunk []byte) {
				defer stored.Done()
				if serr := s.kv.Set(key, chunk, Retention+kvGrace); serr != nil {
					mu.Lock()
					setErr = cmp.Or(setErr, serr)
					mu.Unlock()
				}
				bufs <- chunk[:cap(chunk)]
			}(buf[:n])
		} else {
			bufs <- buf
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			if f.Chunks == 0 {
				_, f.Type, _ = fileview.Sniff(nil, f.Name)
			}
			stored.Wait()
			return failed()
		case err != nil:
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return ErrTooLarge
			}
			return fmt.Errorf("read the upload: %w", err)
		}
	}
}

func (s *Store) deleteBlob(blob string, chunks int) {
	for i := range chunks {
		// A chunk left behind expires with its KV expiry.
		_ = s.kv.Delete(chunkKey(blob, i))
	}
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

// FreeName is name, or the first free "stem (n).ext" when the workspace
// holds a live file of that name. It is advisory: another write may take
// the name before the caller writes it. A write that must not replace a
// file passes ClaimFree instead, which claims the name in the same change
// that stores the file.
func (s *Store) FreeName(userID, name string) string {
	ref, err := resolve(userID, name)
	if err != nil {
		return name
	}
	idx, _, err := s.load(ref.space)
	if err != nil {
		return name
	}
	free, err := claimName(idx, ref.name, ClaimFree, s.live)
	if err != nil {
		return name
	}
	return free
}
