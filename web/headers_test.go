package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
)

func TestSecurityHeaders(t *testing.T) {
	gin.SetMode(gin.TestMode)
	r := gin.New()
	r.Use(securityHeaders)
	r.GET("/", func(c *gin.Context) { c.String(http.StatusOK, "ok") })
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	for k, want := range map[string]string{
		"Referrer-Policy":        "no-referrer", // events_url carries a turn token
		"X-Content-Type-Options": "nosniff",
		"X-Frame-Options":        "DENY",
	} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if rec.Header().Get("Content-Security-Policy") == "" {
		t.Error("no Content-Security-Policy")
	}
}

// Every response shares the security headers' values: a handler that adds to or sets one
// changes its own response only.
func TestSecurityHeadersAreEachResponsesOwn(t *testing.T) {
	gin.SetMode(gin.TestMode)
	r := gin.New()
	r.Use(securityHeaders)
	r.GET("/add", func(c *gin.Context) {
		c.Writer.Header().Add("X-Frame-Options", "SAMEORIGIN")
		c.Writer.Header().Set("Referrer-Policy", "origin")
		c.String(http.StatusOK, "ok")
	})
	r.GET("/", func(c *gin.Context) { c.String(http.StatusOK, "ok") })
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/add", nil))
	if got := rec.Header().Values("X-Frame-Options"); len(got) != 2 || got[1] != "SAMEORIGIN" {
		t.Errorf("X-Frame-Options after Add = %q, want DENY and SAMEORIGIN", got)
	}
	rec = httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if got := rec.Header().Values("X-Frame-Options"); len(got) != 1 || got[0] != "DENY" {
		t.Errorf("next response's X-Frame-Options = %q, want only DENY", got)
	}
	if got := rec.Header().Get("Referrer-Policy"); got != "no-referrer" {
		t.Errorf("next response's Referrer-Policy = %q, want no-referrer", got)
	}
}
