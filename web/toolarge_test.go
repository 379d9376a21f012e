package web

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A turn whose body is past the limit is told the limit, so its client can send less.
func TestTooLargeBodyNamesTheLimit(t *testing.T) {
	srv := newBoundedServer(t, func(c *Config) { c.MaxBody = 2 << 10 })
	body := `{"message":"` + strings.Repeat("a", 3<<10) + `"}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/turns", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer tok-alice")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || errorCode(got) != "too_large" || !strings.Contains(string(got), "2 KiB") {
		t.Errorf("POST of %d bytes = %d %s; want 413 too_large naming the 2 KiB limit", len(body), resp.StatusCode, got)
	}
}
