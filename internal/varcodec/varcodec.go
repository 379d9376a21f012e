// Package varcodec holds what the in-memory audit log and store share to keep their records as
// bytes: strings and lengths as uvarints, and a reader that never panics on bytes it did not
// expect. Records kept as bytes are ones the garbage collector counts but need not scan.
//
// The format is private to the process that writes it: only the writer's own package reads it
// back, so it may change with any version.
package varcodec

import "encoding/binary"

// AppendString appends s as its length and its bytes.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendLen appends the length of a slice, map or raw JSON, telling nil (0) from empty (1):
// the length plus one.
func AppendLen(b []byte, isNil bool, n int) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

// Reader reads encoded fields. Past the end of its bytes, or on a malformed field, it fails:
// from then on every read returns a zero value and [Reader.Failed] reports true, so that a
// decoder checks once, at its end.
type Reader struct {
	b      []byte
	failed bool
}

// NewReader returns a Reader of b; it reads b in place, without copying.
func NewReader(b []byte) Reader { return Reader{b: b} }

// Failed reports whether a read ran past the end or met a malformed field, or Fail was called.
func (r *Reader) Failed() bool { return r.failed }

// Fail marks what is being read as malformed, for a value the caller finds out of range.
func (r *Reader) Fail() { r.failed = true; r.b = nil }

// Left is how many bytes are still to be read.
func (r *Reader) Left() int { return len(r.b) }

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.b) == 0 {
		r.Fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.Fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Int reads a signed varint.
func (r *Reader) Int() int {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.Fail()
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

// Bytes returns the next n bytes, without copying them; their capacity ends with them, so that
// appending to them never writes over what follows.
func (r *Reader) Bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.Fail()
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// RawString returns the bytes of the string AppendString wrote, without copying them.
func (r *Reader) RawString() []byte { return r.Bytes(r.Uvarint()) }

// String reads the string AppendString wrote.
func (r *Reader) String() string { return string(r.RawString()) }

// Len reads what AppendLen wrote: ok is false for nil. A length larger than the bytes left is
// malformed (every element takes a byte at least), so that it cannot size an allocation.
func (r *Reader) Len() (n int, ok bool) {
	v := r.Uvarint()
	if v == 0 {
		return 0, false
	}
	if v-1 > uint64(len(r.b)) {
		r.Fail()
		return 0, false
	}
	return int(v - 1), true
}
