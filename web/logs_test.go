package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/switchboard-ai/switchboard/stream"
)

// jsonLog is a server logging JSON lines to the returned buffer, as serve does in production.
func jsonLog() (*server, *bytes.Buffer) {
	var buf bytes.Buffer
	return &server{log: slog.New(slog.NewJSONHandler(&buf, nil))}, &buf
}

// tookOf reads the took attribute of the one JSON log line in buf.
func tookOf(t *testing.T, buf *bytes.Buffer) any {
	t.Helper()
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log %q: %v", buf, err)
	}
	return line["took"]
}

// Durations in JSON logs read as durations ("15s"), not as slog's nanosecond counts.
func TestLoggedDurationsAreText(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"ended", nil},
		{"ended early", errors.New("write: broken pipe")},
		{"stalled", stream.ErrSlowClient},
	} {
		t.Run("stream "+tc.name, func(t *testing.T) {
			s, buf := jsonLog()
			s.streamEnded(context.Background(), "alice", "turn_1", stream.SSEResult{Completed: true}, tc.err, 15*time.Second)
			if got := tookOf(t, buf); got != "15s" {
				t.Errorf("took = %#v, want \"15s\"", got)
			}
		})
	}
	t.Run("access log", func(t *testing.T) {
		s, buf := jsonLog()
		gin.SetMode(gin.TestMode)
		r := gin.New()
		r.Use(s.accessLog)
		r.GET("/", func(c *gin.Context) { c.Status(http.StatusNoContent) })
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
		took, ok := tookOf(t, buf).(string)
		if _, err := time.ParseDuration(took); !ok || err != nil {
			t.Errorf("took = %#v, want a duration as text", tookOf(t, buf))
		}
	})
}
