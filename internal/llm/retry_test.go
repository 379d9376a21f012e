package llm

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"3", 3 * time.Second, true},
		{" 10 ", 10 * time.Second, true},
		{"0", 0, true},
		{"-4", 0, true},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"soon", 0, false},
		{"1.5", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"1", "120", "Wed, 21 Oct 2015 07:28:00 GMT", "-1", "99999999999999999999"} {
		f.Add(s)
	}
	now := time.Now()
	f.Fuzz(func(t *testing.T, v string) {
		if d, _ := parseRetryAfter(v, now); d < 0 {
			t.Errorf("parseRetryAfter(%q) = %v, want >= 0", v, d)
		}
	})
}

func TestBackoff(t *testing.T) {
	for n := 1; n <= 40; n++ {
		d := min(backoffBase<<min(n-1, 16), backoffMax)
		for range 50 {
			if got := backoff(n); got < d/2 || got > d {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, got, d/2, d)
			}
		}
	}
}

func TestClassify(t *testing.T) {
	netErr := errors.New("connection reset")
	tests := []struct {
		status int
		err    error
		want   verdict
	}{
		{429, nil, verdictRetry},
		{500, nil, verdictRetry},
		{503, netErr, verdictRetry},
		{400, nil, verdictReject},
		{404, netErr, verdictReject},
		{200, netErr, verdictRetry}, // body broke mid-reply
		{0, netErr, verdictRetry},   // no response at all
		{200, nil, verdictFail},     // e.g. a decoding error
		{0, nil, verdictFail},       // never reached the wire
	}
	for _, tt := range tests {
		if got := classify(tt.status, tt.err); got != tt.want {
			t.Errorf("classify(%d, %v) = %v, want %v", tt.status, tt.err, got, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	err := errors.New("401: Incorrect API key provided: " + testKey)
	if got := redact(err, testKey).Error(); got != "401: Incorrect API key provided: [redacted]" {
		t.Errorf("redact() = %q, want the key replaced", got)
	}
	plain := errors.New("boom")
	if got := redact(plain, testKey); got != plain {
		t.Errorf("redact() of an error without the key = %v, want it unchanged", got)
	}
}
