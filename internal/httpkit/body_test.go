package httpkit

import "testing"

func TestLoneSurrogate(t *testing.T) {
	tests := []struct {
		json string
		want bool
	}{
		{`{"m":"hi"}`, false},
		{`{"m":"\ud83d\ude00"}`, false}, // a pair: 😀
		{`{"m":"\uD83D\uDE00"}`, false},
		{`{"m":"\ufffd"}`, false},
		{`{"m":"\u00e9"}`, false},
		{`{"m":"\ud800"}`, true},
		{`{"m":"\udfff"}`, true},
		{`{"m":"\ud800x"}`, true},
		{`{"m":"\ud800\u0041"}`, true},
		{`{"m":"\ud800\ud800"}`, true},
		{`{"m":"\\ud800"}`, false}, // an escaped backslash, then text
		{`{"m":"\\\ud800"}`, true},
		{`{"m":"\ud83d\ude00\udfff"}`, true},
		{`{"m":"\ud8"}`, false}, // not JSON: the decoder refuses it
		{`{"m":"\`, false},
	}
	for _, tc := range tests {
		if got := loneSurrogate([]byte(tc.json)); got != tc.want {
			t.Errorf("loneSurrogate(%s) = %v, want %v", tc.json, got, tc.want)
		}
	}
}
