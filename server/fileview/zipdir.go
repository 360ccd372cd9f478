package fileview

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"io"
)

// This file walks a zip file's central directory itself, one record at a
// time, so that a directory of a million entries is counted without being
// held in memory (archive/zip keeps every entry). It never trusts a size or
// count the file states: every offset is checked against the bytes at hand.

var errZipDamaged = errors.New("the zip directory is damaged or missing")

// zipDir locates a central directory within data.
type zipDir struct {
	data    []byte
	start   int    // offset of the first directory record
	end     int    // offset just past the directory
	base    int    // bytes before the zip proper (self-extracting stubs)
	claimed uint64 // entry count the end record claims
}

// zipEntry is one central directory record. name aliases the file's bytes.
type zipEntry struct {
	name     []byte
	flags    uint16
	method   uint16
	creator  byte // host system of the "version made by" field; 3 is Unix
	extAttr  uint32
	compSize uint64
	size     uint64
	offset   uint64 // local header offset, relative to base
}

func (e *zipEntry) encrypted() bool { return e.flags&1 != 0 }

func (e *zipEntry) unixMode() uint32 {
	if e.creator == 3 {
		return e.extAttr >> 16
	}
	return 0
}

func (e *zipEntry) isDir() bool {
	return bytes.HasSuffix(e.name, []byte("/")) || e.unixMode()&0xF000 == 0x4000 ||
		(e.creator == 0 && e.extAttr&0x10 != 0)
}

func (e *zipEntry) isSymlink() bool { return e.unixMode()&0xF000 == 0xA000 }

// findZipDir finds the end-of-central-directory record (zip64 included).
func findZipDir(data []byte) (zipDir, error) {
	const eocdLen = 22
	if len(data) < eocdLen {
		return zipDir{}, errZipDamaged
	}
	lowest := max(0, len(data)-eocdLen-0xFFFF)
	pos := -1
	for i := len(data) - eocdLen; i >= lowest; i-- {
		if data[i] == 'P' && data[i+1] == 'K' && data[i+2] == 5 && data[i+3] == 6 {
			commentLen := int(binary.LittleEndian.Uint16(data[i+20:]))
			if i+eocdLen+commentLen <= len(data) {
				pos = i
				break
			}
		}
	}
	if pos < 0 {
		return zipDir{}, errZipDamaged
	}
	rec := data[pos:]
	count := uint64(binary.LittleEndian.Uint16(rec[10:]))
	size := uint64(binary.LittleEndian.Uint32(rec[12:]))
	offset := uint64(binary.LittleEndian.Uint32(rec[16:]))
	dirEnd := pos
	if count == 0xFFFF || size == 0xFFFFFFFF || offset == 0xFFFFFFFF {
		if loc := pos - 20; loc >= 0 && string(data[loc:loc+4]) == "PK\x06\x07" {
			p64 := binary.LittleEndian.Uint64(data[loc+8:])
			if len(data) >= 56 && p64 <= uint64(len(data)-56) && string(data[p64:p64+4]) == "PK\x06\x06" {
				r := data[p64:]
				count = binary.LittleEndian.Uint64(r[32:])
				size = binary.LittleEndian.Uint64(r[40:])
				offset = binary.LittleEndian.Uint64(r[48:])
				dirEnd = int(p64)
			}
		}
	}
	if size > uint64(dirEnd) || offset > uint64(dirEnd)-size {
		return zipDir{}, errZipDamaged
	}
	base := dirEnd - int(size) - int(offset)
	return zipDir{data: data, start: base + int(offset), end: base + int(offset) + int(size), base: base, claimed: count}, nil
}

// each calls fn for every directory record in order until fn returns false.
// The entry passed to fn is reused; copy what must outlive the call. It
// returns errZipDamaged when a record is malformed before the directory's
// end, and ctx's error when ctx (which may be nil) is cancelled.
func (d zipDir) each(ctx context.Context, fn func(*zipEntry) bool) error {
	var e zipEntry
	pos := d.start
	for n := 0; pos < d.end; n++ {
		if ctx != nil && n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if pos+46 > d.end || string(d.data[pos:pos+4]) != "PK\x01\x02" {
			return errZipDamaged
		}
		r := d.data[pos:]
		nameLen := int(binary.LittleEndian.Uint16(r[28:]))
		extraLen := int(binary.LittleEndian.Uint16(r[30:]))
		commentLen := int(binary.LittleEndian.Uint16(r[32:]))
		next := pos + 46 + nameLen + extraLen + commentLen
		if next > d.end {
			return errZipDamaged
		}
		e = zipEntry{
			name:     r[46 : 46+nameLen],
			creator:  r[5],
			flags:    binary.LittleEndian.Uint16(r[8:]),
			method:   binary.LittleEndian.Uint16(r[10:]),
			compSize: uint64(binary.LittleEndian.Uint32(r[20:])),
			size:     uint64(binary.LittleEndian.Uint32(r[24:])),
			extAttr:  binary.LittleEndian.Uint32(r[38:]),
			offset:   uint64(binary.LittleEndian.Uint32(r[42:])),
		}
		zip64Extra(&e, r[46+nameLen:46+nameLen+extraLen])
		if !fn(&e) {
			return nil
		}
		pos = next
	}
	return nil
}

// zip64Extra reads the sizes and offset that did not fit in 32 bits.
func zip64Extra(e *zipEntry, extra []byte) {
	for len(extra) >= 4 {
		tag := binary.LittleEndian.Uint16(extra)
		n := int(binary.LittleEndian.Uint16(extra[2:]))
		if 4+n > len(extra) {
			return
		}
		field := extra[4 : 4+n]
		extra = extra[4+n:]
		if tag != 0x0001 {
			continue
		}
		for _, v := range []*uint64{&e.size, &e.compSize, &e.offset} {
			if *v != 0xFFFFFFFF {
				continue
			}
			if len(field) < 8 {
				return
			}
			*v = binary.LittleEndian.Uint64(field)
			field = field[8:]
		}
		return
	}
}

// readSmall returns at most max decompressed bytes of a stored or deflated,
// unencrypted entry (used for symbolic-link targets).
func (d zipDir) readSmall(e *zipEntry, max int) ([]byte, error) {
	if e.encrypted() || e.offset > uint64(len(d.data)) {
		return nil, errZipDamaged
	}
	lh := d.base + int(e.offset)
	if lh < 0 || lh+30 > len(d.data) || string(d.data[lh:lh+4]) != "PK\x03\x04" {
		return nil, errZipDamaged
	}
	start := lh + 30 + int(binary.LittleEndian.Uint16(d.data[lh+26:])) + int(binary.LittleEndian.Uint16(d.data[lh+28:]))
	if start > len(d.data) {
		return nil, errZipDamaged
	}
	end := len(d.data)
	if e.compSize < uint64(end-start) {
		end = start + int(e.compSize)
	}
	var r io.Reader
	switch e.method {
	case 0:
		r = bytes.NewReader(d.data[start:end])
	case 8:
		fr := flate.NewReader(bytes.NewReader(d.data[start:end]))
		defer fr.Close()
		r = fr
	default:
		return nil, errZipDamaged
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(max)))
	if err != nil && len(b) == 0 {
		return nil, err
	}
	return b, nil
}
