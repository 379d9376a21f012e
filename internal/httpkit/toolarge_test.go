package httpkit

import "testing"

// A refused body is told the limit in the unit it was most likely set in.
func TestTooLargeMessage(t *testing.T) {
	for _, tc := range []struct {
		limit int64
		want  string
	}{
		{1 << 20, "The request body is larger than the 1 MiB this API accepts."},
		{64 << 10, "The request body is larger than the 64 KiB this API accepts."},
		{1500, "The request body is larger than the 1500 bytes this API accepts."},
	} {
		if got := TooLargeMessage(tc.limit); got != tc.want {
			t.Errorf("TooLargeMessage(%d) = %q, want %q", tc.limit, got, tc.want)
		}
	}
}
