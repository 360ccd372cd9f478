package fileview

import (
	"archive/tar"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// errReadCap is returned by a cappedReader once its budget is spent.
var errReadCap = errors.New("read cap reached")

// cappedReader passes at most left bytes through, and stops early when its
// context is cancelled, so one long read (a tar entry of gigabytes of zeros)
// is both bounded and cancellable.
type cappedReader struct {
	ctx  context.Context
	r    io.Reader
	left int64
	hit  bool
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if c.left <= 0 {
		c.hit = true
		return 0, errReadCap
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// listing collects an archive's entries, one line each, within the caps.
type listing struct {
	b         strings.Builder
	listed    int
	counted   int  // all entries seen, listed or not
	bytesFull bool // MaxArchiveListingBytes reached
	encrypted int
	stopped   string // why reading stopped early, if it did
}

// more reports whether another entry should be looked at at all.
func (l *listing) more() bool { return l.counted < MaxArchiveEntries+MaxArchiveEntriesCounted }

// add lists one entry, or only counts it once the listing is full.
func (l *listing) add(name []byte, what string) {
	l.counted++
	if l.listed >= MaxArchiveEntries || l.bytesFull {
		return
	}
	line := entryName(name) + "\t" + what + "\n"
	if l.b.Len()+len(line) > MaxArchiveListingBytes {
		l.bytesFull = true
		return
	}
	l.b.WriteString(line)
	l.listed++
}

// entryName shows an entry's path safely: invisible characters and invalid
// UTF-8 become U+FFFD, and very long paths are cut.
func entryName(name []byte) string {
	if len(name) == 0 {
		return "(no name)"
	}
	return visible(string(name[:min(len(name), MaxArchiveNameBytes+4)]), MaxArchiveNameBytes)
}

func bytesText(n int64) string {
	return countNoun64(n, "byte", "bytes")
}

// convertArchive lists a zip or (compressed) tar archive in numbered windows.
func convertArchive(ctx context.Context, data []byte, req Request, s sniffed) (*View, error) {
	var (
		l   *listing
		err error
	)
	switch s.family {
	case "zip", "docx", "xlsx", "pptx":
		l, err = listZip(ctx, data)
	case "gzip":
		zr, gerr := gzip.NewReader(bytes.NewReader(data))
		if gerr != nil {
			return describeView(req, int64(len(data)), s.detected, KindArchive, s.mismatch,
				"its gzip header is damaged, so its entries cannot be listed"), nil
		}
		l, err = listTar(ctx, &cappedReader{ctx: ctx, r: zr, left: MaxArchiveReadBytes})
	case "bzip2":
		l, err = listTar(ctx, &cappedReader{ctx: ctx, r: bzip2.NewReader(bytes.NewReader(data)), left: MaxArchiveReadBytes})
	default:
		l, err = listTar(ctx, bytes.NewReader(data))
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return describeView(req, int64(len(data)), s.detected, KindArchive, s.mismatch,
			"its directory of entries is damaged or missing (the file may be cut short), so its entries cannot be listed"), nil
	}
	return windowView(ctx, l.b.String(), req, KindArchive, s.detected, s.mismatch, int64(len(data)), listingAbout(l))
}

// listingAbout writes what the listing is and what it leaves out.
func listingAbout(l *listing) []string {
	var b strings.Builder
	fmt.Fprintf(&b, "A listing of its entries, %s", countNoun(l.counted, "entry", "entries"))
	if l.stopped != "" {
		b.WriteString(" found before reading stopped")
	}
	if l.encrypted > 0 {
		fmt.Fprintf(&b, " (%s encrypted)", commas(int64(l.encrypted)))
	}
	b.WriteString(`: one line per entry, its path, a tab, then its size in bytes, "directory", or "link -> target". The entries' contents are not included.`)
	about := []string{b.String()}
	if l.listed < l.counted {
		more := l.counted - l.listed
		reason := fmt.Sprintf("the listing stopped at %s entries", commas(int64(l.listed)))
		if l.bytesFull {
			reason = fmt.Sprintf("the listing stopped at %s of entry names, after %s entries", sizeText(MaxArchiveListingBytes), commas(int64(l.listed)))
		}
		if l.more() {
			about = append(about, fmt.Sprintf("Only part is listed: %s; %s more are not listed.", reason, commas(int64(more))))
		} else {
			about = append(about, fmt.Sprintf("Only part is listed: %s; counting stopped %s entries later, and there may be more.", reason, commas(int64(more))))
		}
	}
	if l.stopped != "" {
		about = append(about, sentence(l.stopped))
	}
	return about
}

// listZip lists a zip from its central directory; nothing is decompressed
// but symbolic-link targets.
func listZip(ctx context.Context, data []byte) (*listing, error) {
	dir, err := findZipDir(data)
	if err != nil {
		return nil, err
	}
	l := &listing{}
	err = dir.each(ctx, func(e *zipEntry) bool {
		var what string
		switch {
		case e.isDir():
			what = "directory"
		case e.isSymlink() && !e.encrypted() && l.listed < MaxArchiveEntries:
			target, terr := dir.readSmall(e, MaxLinkTargetBytes)
			if terr != nil {
				what = "link (its target cannot be read)"
			} else {
				what = "link -> " + entryName(target)
			}
		case e.isSymlink():
			what = "link"
		default:
			what = bytesText(int64(min(e.size, 1<<62)))
		}
		if e.encrypted() {
			what += ", encrypted"
			l.encrypted++
		}
		l.add(e.name, what)
		return l.more()
	})
	if errors.Is(err, errZipDamaged) && l.counted > 0 {
		l.stopped = fmt.Sprintf("The zip directory is damaged after entry %s; entries after it are not listed", commas(int64(l.counted)))
		return l, nil
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// listTar lists a tar stream. Tar keeps each entry's data between headers,
// so a compressed tar is read through up to MaxArchiveReadBytes.
func listTar(ctx context.Context, r io.Reader) (*listing, error) {
	tr := tar.NewReader(r)
	l := &listing{}
	for l.more() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			cr, capped := r.(*cappedReader)
			switch {
			case capped && cr.hit || errors.Is(err, errReadCap):
				l.stopped = fmt.Sprintf("Reading stopped after %s of decompressed data, after entry %s; later entries are not listed or counted",
					sizeText(MaxArchiveReadBytes), commas(int64(l.counted)))
			case l.counted == 0:
				return nil, err
			default:
				l.stopped = fmt.Sprintf("The archive is damaged or cut short after entry %s; later entries are not listed", commas(int64(l.counted)))
			}
			break
		}
		var what string
		switch h.Typeflag {
		case tar.TypeXGlobalHeader:
			continue
		case tar.TypeDir:
			what = "directory"
		case tar.TypeSymlink:
			what = "link -> " + entryName([]byte(h.Linkname))
		case tar.TypeLink:
			what = "hard link -> " + entryName([]byte(h.Linkname))
		case tar.TypeChar, tar.TypeBlock:
			what = "device"
		case tar.TypeFifo:
			what = "named pipe"
		default:
			what = bytesText(max(h.Size, 0))
		}
		l.add([]byte(h.Name), what)
	}
	return l, nil
}
