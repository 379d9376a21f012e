package web

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
)

// Requests net/http refuses before any handler runs are answered in the JSON error shape
// too; every other answer passes through untouched.
func TestJSONErrorsListener(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Connection", "close")
		_, _ = w.Write([]byte("plain text from a handler"))
	})
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = JSONErrors(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)

	tests := []struct {
		name, request string
		status        int
		code          string // "" for an answer that must pass untouched
	}{
		{"control byte in a header", "POST /v1/turns HTTP/1.1\r\nHost: x\r\nIdempotency-Key: abc\x01def\r\nContent-Length: 2\r\n\r\n{}", 400, "bad_request"},
		{"malformed request line", "GARBAGE\r\n\r\n", 400, "bad_request"},
		{"a handler's own text", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := conn.Write([]byte(tc.request)); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tc.status)
			}
			if tc.code == "" {
				var b strings.Builder
				_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
				if b.String() != "plain text from a handler" {
					t.Errorf("body = %q, want the handler's own text", b.String())
				}
				return
			}
			var e httpkit.ErrorResponse
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want JSON", ct)
			}
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || e.Error.Code != tc.code {
				t.Errorf("body = %+v (%v), want error code %q", e, err, tc.code)
			}
		})
	}
}

// A detached event stream's burst goes through WriteBuffers to the wrapped connection as it
// is, even when it would read as one of net/http's canned answers.
func TestJSONErrorsConnWritesBuffersUnchanged(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	var conn net.Conn = jsonErrorConn{server}
	bw, ok := conn.(interface {
		WriteBuffers(*net.Buffers) (int64, error)
	})
	if !ok {
		t.Fatal("jsonErrorConn offers no WriteBuffers: a detached stream would write a frame a system call")
	}
	burst := []string{"HTTP/1.1 400 Bad Request", string(cannedHeaders), "id: 1\ndata: {}\nevent: turn.started\n\n"}
	read := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(client)
		read <- string(b)
	}()
	v := net.Buffers{[]byte(burst[0]), []byte(burst[1]), []byte(burst[2])}
	if n, err := bw.WriteBuffers(&v); err != nil || n != int64(len(strings.Join(burst, ""))) {
		t.Fatalf("WriteBuffers = %d, %v, want %d, nil", n, err, len(strings.Join(burst, "")))
	}
	server.Close()
	if got := <-read; got != strings.Join(burst, "") {
		t.Errorf("the connection got %q, want the burst unchanged", got)
	}
}
