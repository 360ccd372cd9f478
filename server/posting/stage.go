package posting

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io"
	"unicode/utf8"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
)

// Staging reads each file once, as a stream, to tell the person its size,
// type and sha256 and to make its preview or thumbnail. How much of a file
// it holds meanwhile is bounded here, per slot of the registry.
const (
	// MaxWholeBytes: a file up to 16 MiB is held whole while it is staged,
	// so its type is told from all of its bytes and an image gets a
	// thumbnail (photos and screenshots are a few MiB). With the process's
	// slots that is at most slots x 16 MiB. A larger file streams through
	// a hash, keeping only its head and tail; it gets no thumbnail.
	MaxWholeBytes = 16 << 20
	// headBytes of a larger file are kept to tell its type and make a text
	// preview: every magic number fileview looks for is in the first few
	// hundred bytes, and a preview reads at most previewScanBytes.
	headBytes = 64 << 10
	// tailBytes of a larger file are kept to find a zip's directory, which
	// names an Office document's parts: the end record and its comment take
	// at most 64 KiB, and the directory of a package of 10,000 parts about
	// 1 MiB.
	tailBytes = 1<<20 + 64<<10
)

// describe fills size, sha256 and type from the bytes, and the preview or
// thumbnail the person is shown.
func describe(ctx context.Context, s Staged, data []byte) Staged {
	sum := sha256.Sum256(data)
	s.Size = int64(len(data))
	s.SHA256 = hex.EncodeToString(sum[:])
	_, s.Detected, s.Mismatch = fileview.Sniff(data, s.Name)
	addPreview(ctx, &s, data)
	return s
}

// describeStream describes a file from a stream, reading it to its end (so
// a source that checks its bytes against a record does so). A file of at
// most MaxWholeBytes is held whole and described as describe does; a
// larger one is hashed as it passes and described from its head and tail.
func describeStream(ctx context.Context, s Staged, st Stream) (Staged, error) {
	if st.Whole != nil && len(st.Whole) <= MaxWholeBytes {
		return describe(ctx, s, st.Whole), nil
	}
	if st.Ends != nil && st.SHA256 != "" && st.Size > MaxWholeBytes {
		head, tail, err := st.Ends(headBytes, tailBytes)
		if err != nil {
			return Staged{}, err
		}
		s.Size, s.SHA256 = st.Size, st.SHA256
		return described(s, head, tail, st.Size), nil
	}
	c := &collector{sum: sha256.New()}
	if st.Whole == nil && st.Size >= 0 && st.Size <= MaxWholeBytes {
		// Exactly one allocation of the recorded size: a growing buffer
		// would briefly hold twice the file.
		c.whole = make([]byte, 0, st.Size)
		c.keepWhole = true
	}
	// A stream that ends early or fails is the source's error, worded by
	// the caller; context cancellation stops at the source's next read.
	if _, err := io.Copy(c, st.Body); err != nil {
		return Staged{}, err
	}
	if err := ctx.Err(); err != nil {
		return Staged{}, err
	}
	if c.keepWhole {
		return describe(ctx, s, c.whole), nil
	}
	s.Size = c.n
	s.SHA256 = hex.EncodeToString(c.sum.Sum(nil))
	return described(s, c.head, c.tail.bytes(), c.n), nil
}

// described is a file too large to describe whole, told by its ends: its
// type, and a preview of text.
func described(s Staged, head, tail []byte, size int64) Staged {
	var kind fileview.Kind
	kind, s.Detected, s.Mismatch = fileview.Sniff(sniffProbe(head, tail, size), s.Name)
	if kind == fileview.KindText {
		s.Preview = TextPreview(head)
	}
	return s
}

// collector hashes and counts what passes, holding the whole file while
// keepWhole (and it stays within MaxWholeBytes), otherwise its head and
// its tail.
type collector struct {
	sum       hash.Hash
	n         int64
	keepWhole bool
	whole     []byte
	head      []byte
	tail      ring
}

func (c *collector) Write(p []byte) (int, error) {
	c.sum.Write(p)
	c.n += int64(len(p))
	if c.keepWhole {
		if len(c.whole)+len(p) <= MaxWholeBytes {
			c.whole = append(c.whole, p...)
			return len(p), nil
		}
		// Longer than its record said: keep its head and tail from here on.
		c.keepWhole = false
		held := c.whole
		c.whole = nil
		c.keep(held)
	}
	c.keep(p)
	return len(p), nil
}

// keep adds bytes to the head (until it is full) and the tail.
func (c *collector) keep(p []byte) {
	if room := headBytes - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(room, len(p))]...)
	}
	c.tail.write(p)
}

// ring keeps the last tailBytes written.
type ring struct {
	buf     []byte
	pos     int
	written int64
}

func (r *ring) write(p []byte) {
	if r.buf == nil {
		r.buf = make([]byte, tailBytes)
	}
	r.written += int64(len(p))
	if len(p) >= len(r.buf) {
		copy(r.buf, p[len(p)-len(r.buf):])
		r.pos = 0
		return
	}
	n := copy(r.buf[r.pos:], p)
	copy(r.buf, p[n:])
	r.pos = (r.pos + len(p)) % len(r.buf)
}

// bytes is what the ring holds, oldest first.
func (r *ring) bytes() []byte {
	if r.written < int64(len(r.buf)) {
		return r.buf[:r.written]
	}
	return append(append(make([]byte, 0, len(r.buf)), r.buf[r.pos:]...), r.buf[:r.pos]...)
}

// sniffProbe is what fileview.Sniff is shown of a file too large to hold:
// its head, with a character cut at the end of the head left out (so UTF-8
// text is not taken for another encoding); for a zip, the head followed by
// the directory found in the tail; for a legacy Office (OLE2) file, head
// and tail, where its directory usually is.
func sniffProbe(head, tail []byte, size int64) []byte {
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		if probe, ok := zipProbe(head, tail, size); ok {
			return probe
		}
	case bytes.HasPrefix(head, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}):
		return append(append(make([]byte, 0, len(head)+len(tail)), head...), tail...)
	}
	return trimCutRune(head)
}

// trimCutRune leaves out a UTF-8 character that the head cut in two.
func trimCutRune(b []byte) []byte {
	for cut := 1; cut < utf8.UTFMax && cut <= len(b); cut++ {
		if utf8.RuneStart(b[len(b)-cut]) {
			if !utf8.FullRune(b[len(b)-cut:]) {
				return b[:len(b)-cut]
			}
			return b
		}
	}
	return b
}

// zipProbe rebuilds the parts of a zip that fileview.Sniff reads (its
// first bytes, its central directory and the end record) from the head and
// the tail of a file too large to hold. The directory is placed right after
// the head, and the probe's copy of the end record says so; fileview reads
// only the directory's entry names from it. ok is false when the directory
// is not within the tail, or the zip uses zip64 records.
func zipProbe(head, tail []byte, size int64) ([]byte, bool) {
	const eocdLen = 22
	if len(tail) < eocdLen {
		return nil, false
	}
	pos := -1
	for i := len(tail) - eocdLen; i >= max(0, len(tail)-eocdLen-0xFFFF); i-- {
		if tail[i] == 'P' && tail[i+1] == 'K' && tail[i+2] == 5 && tail[i+3] == 6 &&
			i+eocdLen+int(binary.LittleEndian.Uint16(tail[i+20:])) <= len(tail) {
			pos = i
			break
		}
	}
	if pos < 0 {
		return nil, false
	}
	end := tail[pos:]
	count := binary.LittleEndian.Uint16(end[10:])
	dirSize := int64(binary.LittleEndian.Uint32(end[12:]))
	dirOffset := binary.LittleEndian.Uint32(end[16:])
	if count == 0xFFFF || dirSize == 0xFFFFFFFF || dirOffset == 0xFFFFFFFF {
		return nil, false
	}
	// The directory ends where the end record begins.
	dirStart := int64(pos) - dirSize
	if dirStart < 0 || int64(len(tail)) > size {
		return nil, false
	}
	keep := min(len(head), 512)
	probe := make([]byte, 0, keep+int(dirSize)+len(end))
	probe = append(probe, head[:keep]...)
	probe = append(probe, tail[dirStart:pos]...)
	probe = append(probe, end...)
	binary.LittleEndian.PutUint32(probe[keep+int(dirSize)+16:], uint32(keep))
	return probe, true
}
