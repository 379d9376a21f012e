package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// Mounted under a prefix with http.StripPrefix, as docs/embedding.md shows, the events_url a
// new turn answers with is one the client can follow: the prefix included.
func TestEventsURLUnderAPrefix(t *testing.T) {
	inner := newBoundedServer(t, nil) // the handler, served at the root
	mux := http.NewServeMux()
	mux.Handle("/assistant/", http.StripPrefix("/assistant", inner.Config.Handler))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/assistant/v1/turns", strings.NewReader(`{"message":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tok-alice")
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var started struct {
		EventsURL string `json:"events_url"`
	}
	err = json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /assistant/v1/turns = %d, %v", resp.StatusCode, err)
	}
	if !strings.HasPrefix(started.EventsURL, "/assistant/v1/turns/") {
		t.Fatalf("events_url = %q, want it under /assistant/", started.EventsURL)
	}
	resp, err = srv.Client().Get(srv.URL + started.EventsURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET events_url = %d, want 200", resp.StatusCode)
	}
}

// The chat page, mounted under a prefix, loads its assets and reaches the API there: its links
// are relative to its own address, a turn started at the address the page computes streams
// through the prefix, and the bare mount point redirects to the page.
func TestChatPageUnderAPrefix(t *testing.T) {
	inner := newBoundedServer(t, func(cfg *Config) {
		cfg.DevLogin = func(sub string) (string, error) { return "tok-" + sub, nil }
	})
	mux := http.NewServeMux()
	mux.Handle("/assistant/", http.StripPrefix("/assistant", inner.Config.Handler))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := srv.Client()

	get := func(t *testing.T, u string) (*http.Response, string) {
		t.Helper()
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(body)
	}

	// Without the slash the mux redirects to the page, and the client follows.
	resp, _ := get(t, srv.URL+"/assistant")
	if got := resp.Request.URL.Path; got != "/assistant/" {
		t.Errorf("GET /assistant ended at %q, want /assistant/", got)
	}
	resp, page := get(t, srv.URL+"/assistant/")
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /assistant/ = %d %q, want 200 text/html", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	pageURL := resp.Request.URL

	assets := regexp.MustCompile(`<(?:link rel="stylesheet"|script)[^>]* (?:href|src)="([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(assets) != 3 {
		t.Fatalf("page links %d assets, want 3 (style.css, markdown.js, app.js)", len(assets))
	}
	var appJS string
	for _, m := range assets {
		ref, err := url.Parse(m[1])
		if err != nil {
			t.Fatal(err)
		}
		u := pageURL.ResolveReference(ref)
		if !strings.HasPrefix(u.Path, "/assistant/static/") {
			t.Errorf("asset %q resolves to %s, want it under /assistant/static/", m[1], u.Path)
			continue
		}
		resp, body := get(t, u.String())
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", u.Path, resp.StatusCode)
		}
		if strings.HasSuffix(u.Path, "/app.js") {
			appJS = body
		}
	}

	// The script names API paths relative to the page: one starting with a slash would go to
	// the embedding program's root, past the prefix.
	if appJS == "" {
		t.Fatal("the page does not load app.js")
	}
	if m := regexp.MustCompile(`['"]/(?:v1|static)/`).FindString(appJS); m != "" {
		t.Errorf("app.js calls a root-absolute path %s...; want paths relative to the page", m)
	}
	for _, p := range []string{"'v1/dev/token'", "'v1/turns'", "'v1/episodes/'"} {
		if !strings.Contains(appJS, p) {
			t.Errorf("app.js does not call %s", p)
		}
	}

	// Sign in and run a turn at the addresses the page computes from its own URL.
	api := func(p string) string { return pageURL.ResolveReference(&url.URL{Path: p}).String() }
	resp, err := client.Post(api("v1/dev/token"), "application/json", strings.NewReader(`{"sub":"alice"}`))
	if err != nil {
		t.Fatal(err)
	}
	var signedIn struct {
		Token string `json:"token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&signedIn)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || signedIn.Token == "" {
		t.Fatalf("POST %s = %d %+v, %v", api("v1/dev/token"), resp.StatusCode, signedIn, err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, api("v1/turns"), strings.NewReader(`{"message":"any deals on running shoes?"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+signedIn.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var started struct {
		EventsURL string `json:"events_url"`
	}
	err = json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST %s = %d, %v", api("v1/turns"), resp.StatusCode, err)
	}
	// The page opens its EventSource at events_url resolved against its own address.
	ref, err := url.Parse(started.EventsURL)
	if err != nil {
		t.Fatal(err)
	}
	resp, events := get(t, pageURL.ResolveReference(ref).String())
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET events_url = %d, want 200", resp.StatusCode)
	}
	for _, name := range []string{"event: turn.started", "event: reply.completed", "event: turn.completed"} {
		if !strings.Contains(events, name) {
			t.Errorf("events through the prefix lack %q:\n%s", name, events)
		}
	}
}

// A router that hands the bare mount point on as an empty path (http.StripPrefix with no
// ServeMux in front) gets a redirect to the page's address with the slash, query kept.
func TestBareMountPointRedirects(t *testing.T) {
	inner := newBoundedServer(t, nil)
	for _, tt := range []struct {
		name    string
		handler http.Handler
	}{
		{"Handler", inner.Config.Handler},
		{"Chat", inner.Config.Handler.(*Handler).Chat()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.StripPrefix("/assistant", tt.handler))
			defer srv.Close()
			client := srv.Client()
			client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			resp, err := client.Get(srv.URL + "/assistant?x=1")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/assistant/?x=1" {
				t.Errorf("GET /assistant?x=1 = %d Location %q, want 301 to /assistant/?x=1", resp.StatusCode, resp.Header.Get("Location"))
			}
		})
	}
}

// The redirect stays on this site whatever prefix a router stripped: a request line of
// //host must not turn into a Location of //host/, which a browser reads as another origin.
func TestBareMountPointRedirectStaysOnSite(t *testing.T) {
	h := newBoundedServer(t, nil).Config.Handler
	for _, tt := range []struct{ target, want string }{
		{"//evil.example", "/evil.example/"},
		{"///evil.example?a=b", "/evil.example/?a=b"},
		{"/a%20b", "/a%20b/"},
	} {
		r := httptest.NewRequest(http.MethodGet, tt.target, nil)
		r.URL.Path, r.URL.RawPath = "", "" // what a router that stripped the whole path hands on
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if got := w.Header().Get("Location"); w.Code != http.StatusMovedPermanently || got != tt.want {
			t.Errorf("GET %s = %d Location %q, want 301 to %q", tt.target, w.Code, got, tt.want)
		}
	}
}
