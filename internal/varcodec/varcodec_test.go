package varcodec

import "testing"

func TestReaderReadsWhatWasAppended(t *testing.T) {
	var b []byte
	b = AppendString(b, "héllo")
	b = AppendLen(b, true, 0)
	b = AppendLen(b, false, 0)
	b = AppendLen(b, false, 1)
	b = append(b, 7)
	r := NewReader(b)
	if got := r.String(); got != "héllo" {
		t.Errorf("String() = %q, want %q", got, "héllo")
	}
	for _, want := range []struct {
		n  int
		ok bool
	}{{0, false}, {0, true}} {
		if n, ok := r.Len(); n != want.n || ok != want.ok {
			t.Errorf("Len() = %d, %v, want %d, %v", n, ok, want.n, want.ok)
		}
	}
	// A length of one with one byte left is whole: the byte is its element.
	if n, ok := r.Len(); n != 1 || !ok {
		t.Errorf("Len() = %d, %v, want 1, true", n, ok)
	}
	if got := r.Byte(); got != 7 || r.Failed() || r.Left() != 0 {
		t.Errorf("Byte() = %d, failed %v, left %d, want 7, false, 0", got, r.Failed(), r.Left())
	}
	if r.Byte(); !r.Failed() {
		t.Error("reading past the end did not fail")
	}
}

func TestReaderFailsOnMalformedBytes(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		read func(*Reader)
	}{
		{"string longer than its bytes", AppendString(nil, "abc")[:3], func(r *Reader) { _ = r.String() }},
		{"length larger than the bytes left", AppendLen(nil, false, 5), func(r *Reader) { r.Len() }},
		{"truncated varint", []byte{0x80}, func(r *Reader) { r.Uvarint() }},
		{"empty int", nil, func(r *Reader) { r.Int() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(tt.in)
			tt.read(&r)
			if !r.Failed() {
				t.Errorf("reading %x did not fail", tt.in)
			}
		})
	}
}

// FuzzReader reads arbitrary bytes with every method in turn: no input may panic, and a reader
// that has failed returns zero values from then on.
func FuzzReader(f *testing.F) {
	f.Add(AppendString(AppendLen(nil, false, 2), "ab"))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(b)
		for r.Left() > 0 && !r.Failed() {
			r.Byte()
			r.Int()
			_ = r.String()
			r.Len()
			r.Bytes(r.Uvarint())
		}
		if r.Failed() {
			if s := r.String(); s != "" || r.Left() != 0 {
				t.Errorf("a failed reader read %q with %d bytes left", s, r.Left())
			}
		}
	})
}
