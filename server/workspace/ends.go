package workspace

import "fmt"

// Ends reads a file's first head bytes and last tail bytes without the
// chunks between: every chunk but the last holds ChunkSize bytes, so the
// ones that hold each end are known from the record. Describing a large
// file (its type, a zip's directory) needs only its ends, and its record
// already holds its size and sha256, which a later full read checks.
func (s *Store) Ends(f File, head, tail int) ([]byte, []byte, error) {
	size := f.Size
	read := func(from, to int64) ([]byte, error) {
		out := make([]byte, 0, to-from)
		for i := from / ChunkSize; i*ChunkSize < to; i++ {
			data, err := s.kv.Get(chunkKey(f.Blob, int(i)))
			if err != nil {
				return nil, err
			}
			start := i * ChunkSize
			if data == nil || int(i) >= f.Chunks || start+int64(len(data)) < min(to, size) && int64(len(data)) != ChunkSize {
				return nil, fmt.Errorf("%w: chunk %d of %q", ErrChanged, i, f.Name)
			}
			lo, hi := max(from-start, 0), min(to-start, int64(len(data)))
			out = append(out, data[lo:hi]...)
		}
		if int64(len(out)) != to-from {
			return nil, fmt.Errorf("%w: %q is shorter than its record", ErrChanged, f.Name)
		}
		return out, nil
	}
	h, err := read(0, min(int64(head), size))
	if err != nil {
		return nil, nil, err
	}
	t, err := read(max(size-int64(tail), 0), size)
	if err != nil {
		return nil, nil, err
	}
	return h, t, nil
}
