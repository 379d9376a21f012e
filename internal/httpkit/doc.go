// Package httpkit is the plumbing every HTTP surface of switchboard shares, whatever protocol
// it speaks: the JSON error shape, authentication through a [principal.Authenticator], request
// bodies read under a deadline and checked for text a store can hold, and the per-principal
// count of open event streams. It knows no routes and no protocol; the REST API (web), A2A
// (a2aserver) and AG-UI (agui) build on it.
package httpkit
