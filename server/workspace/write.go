package workspace

// Writing a file: whole or not at all, under a name claimed in the same
// index change that stores it.

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
)

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
