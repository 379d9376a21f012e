package httpkit

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestRefusalsDropTheBody: the surfaces' catch-alls answer a request whose body is still
// arriving without waiting for it, though the body may take an hour, and close its
// connection; a request without a body keeps its connection.
func TestRefusalsDropTheBody(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    int
	}{
		{"NotFound", NotFound, http.StatusNotFound},
		{"MethodNotAllowed", MethodNotAllowed(http.MethodGet), http.StatusMethodNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tc.handler(w, WithBodyDeadline(w, r, time.Hour))
			}))
			defer srv.Close()

			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"); err != nil {
				t.Fatal(err)
			}
			// A bound far above an answer that does not wait, far below the body's hour.
			_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("reading the answer while the body is still arriving: %v", err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want || !resp.Close {
				t.Errorf("answer = %d, Connection: close %v; want %d and close", resp.StatusCode, resp.Close, tc.want)
			}
			if _, err := br.ReadByte(); err != io.EOF {
				t.Errorf("after the answer: %v, want the connection closed (EOF)", err)
			}

			resp, err = srv.Client().Get(srv.URL + "/x")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want || resp.Close {
				t.Errorf("GET without a body = %d, Connection: close %v; want %d and the connection kept", resp.StatusCode, resp.Close, tc.want)
			}
		})
	}
}
