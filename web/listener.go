package web

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strconv"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
)

// JSONErrors wraps ln so that the answers net/http writes by itself, for requests it cannot
// parse before any handler runs (a header value holding control characters, a malformed
// request line, an oversized head), come in the service's JSON error shape too, as every other
// error does. Those answers are written straight to the connection in one write, with a
// text/plain header block no handler here produces; everything else passes untouched.
func JSONErrors(ln net.Listener) net.Listener { return jsonErrorListener{ln} }

type jsonErrorListener struct{ net.Listener }

func (l jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return jsonErrorConn{c}, nil
}

type jsonErrorConn struct{ net.Conn }

// NetConn returns the wrapped connection, as tls.Conn does: a detached event stream tunes and
// watches the socket itself.
func (c jsonErrorConn) NetConn() net.Conn { return c.Conn }

// CloseWrite half-closes the connection when it can, as net/http does after an error answer.
func (c jsonErrorConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// WriteBuffers writes v on the wrapped connection, in one writev where it is a socket: a
// detached event stream's burst of frames (see stream.Detach), which net/http never writes and
// which no canned answer can be. Through Write, net.Buffers would spend a system call a frame.
func (c jsonErrorConn) WriteBuffers(v *net.Buffers) (int64, error) { return v.WriteTo(c.Conn) }

// cannedHeaders follow the status line of net/http's own error answers.
var cannedHeaders = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

func (c jsonErrorConn) Write(p []byte) (int, error) {
	if q, ok := asJSONError(p); ok {
		if _, err := c.Conn.Write(q); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// asJSONError rewrites one of net/http's canned error answers; ok is false for anything else.
func asJSONError(p []byte) (_ []byte, ok bool) {
	if len(p) > 1024 || !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) {
		return nil, false
	}
	end := bytes.Index(p, cannedHeaders)
	if end < 0 || bytes.IndexByte(p[:end], '\n') >= 0 {
		return nil, false // the header block must follow the status line directly
	}
	statusLine := p[:end]
	code, err := strconv.Atoi(string(statusLine[len("HTTP/1.1 "):min(len(statusLine), len("HTTP/1.1 ")+3)]))
	if err != nil {
		return nil, false
	}
	errCode, msg := "bad_request", "The request could not be read: its request line or a header is malformed. Header values may not hold control characters."
	switch code {
	case 431:
		errCode, msg = "headers_too_large", "The request's headers are too large."
	case 501:
		errCode, msg = "not_implemented", "The request's transfer encoding is not supported."
	}
	body, _ := json.Marshal(httpkit.ErrorResponse{Error: httpkit.ErrorBody{Code: errCode, Message: msg}})
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 ")
	b.WriteString(strconv.Itoa(code))
	b.WriteString(" ")
	b.WriteString(http.StatusText(code))
	b.WriteString("\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\nContent-Length: ")
	b.WriteString(strconv.Itoa(len(body)))
	b.WriteString("\r\n\r\n")
	b.Write(body)
	return b.Bytes(), true
}
