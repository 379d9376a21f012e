package httpkit

import (
	"net/http"
	"net/url"
	"strings"
)

// MountPrefix is the path prefix that a program mounting a surface stripped before it
// (http.StripPrefix): the path the client asked for, less the path the handler was given. It
// is "" at the root. Links a surface hands out (an events URL, the agent card's endpoint) put
// it in front, so that a client following them reaches the surface again.
func MountPrefix(r *http.Request) string {
	u, err := url.ParseRequestURI(r.RequestURI)
	if err != nil {
		return ""
	}
	prefix, ok := strings.CutSuffix(u.Path, r.URL.Path)
	if !ok || !strings.HasPrefix(prefix, "/") {
		return ""
	}
	return prefix
}
