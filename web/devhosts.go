package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
)

// devHostsOnly refuses requests whose Host is not localhost, a name under .localhost, an IP
// address or one of names. A dev-mode server signs anyone in as anyone; a page on another
// site that rebinds its own name to 127.0.0.1 reaches the server under that name, which this
// refuses, while the developer's browser and tools address it as localhost or by IP.
func devHostsOnly(names []string) (gin.HandlerFunc, error) {
	allowed := make([]string, len(names))
	for i, n := range names {
		if n == "" || strings.ContainsAny(n, ":/ ") {
			return nil, fmt.Errorf("http.dev_hosts: %q is not a host name (write it without scheme or port)", n)
		}
		allowed[i] = strings.ToLower(strings.TrimSuffix(n, "."))
	}
	return func(c *gin.Context) {
		if devHost(c.Request.Host, allowed) {
			return
		}
		httpkit.DropBody(c.Writer, c.Request)
		abort(c, http.StatusForbidden, "host_not_allowed",
			"This dev-mode server answers only requests addressed to localhost or an IP address. Add the name to http.dev_hosts, or configure auth.")
	}, nil
}

// devHost reports whether host (a Host header, with or without a port) may reach a dev-mode
// server.
func devHost(host string, allowed []string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.ToLower(strings.TrimSuffix(strings.Trim(name, "[]"), "."))
	if name == "" {
		return false
	}
	if _, err := netip.ParseAddr(name); err == nil || name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	return slices.Contains(allowed, name)
}
