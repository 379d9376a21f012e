package ccsdemo

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/switchboard-ai/switchboard/ccs"
)

func TestLoadFixtures(t *testing.T) {
	good := `{"domain_type":"plant_list","payload":{"plants":[]},"users":{"bob":{"plants":[{"name":"Fern"}]}}}`
	for _, tc := range []struct {
		name, file, body, wantErr string
	}{
		{"good", "garden.plants.json", good, ""},
		{"no domain type", "garden.plants.json", `{"payload":{}}`, "domain_type is required"},
		{"no payload", "garden.plants.json", `{"domain_type":"x"}`, "payload (or users) is required"},
		{"unknown key", "garden.plants.json", `{"domain_type":"x","payload":{},"payloads":{}}`, "unknown field"},
		{"not json", "garden.plants.json", `{"domain_type":`, "fixtures/garden.plants.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"fixtures/" + tc.file: {Data: []byte(tc.body)}, "fixtures/README.md": {Data: []byte("ignored")}}
			got, err := LoadFixtures(fsys, "fixtures")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("LoadFixtures() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(got) != 1 || got["garden.plants"].Version != "1.0.0" {
				t.Fatalf("LoadFixtures() = %+v, %v", got, err)
			}
		})
	}
	if got, err := LoadFixtures(fstest.MapFS{}, "fixtures"); err != nil || got != nil {
		t.Errorf("no fixtures folder: %v, %v; want none and no error", got, err)
	}
}

// A fixture that cannot be used is a *FixtureError naming the file as in fsys and, for a JSON
// syntax or type error, its line, so that validate can point at it as at a definition.
func TestLoadFixturesErrorLocatesTheProblem(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		wantLine   int
		wantText   string
	}{
		{"syntax", "{\n  \"domain_type\": \"plant_list\",\n  \"payload\": {\"plants\": [}\n}\n", 3, "ccsdemo: fixture fixtures/garden.plants.json:3: invalid character '}' looking for beginning of value"},
		{"type", "{\n  \"domain_type\": 7,\n  \"payload\": {}\n}\n", 2, "ccsdemo: fixture fixtures/garden.plants.json:2: "},
		{"no domain type", `{"payload":{}}`, 0, "ccsdemo: fixture fixtures/garden.plants.json: domain_type is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadFixtures(fstest.MapFS{"fixtures/garden.plants.json": {Data: []byte(tc.body)}}, "fixtures")
			var fe *FixtureError
			if !errors.As(err, &fe) || fe.File != "fixtures/garden.plants.json" || fe.Line != tc.wantLine || !strings.HasPrefix(err.Error(), tc.wantText) {
				t.Errorf("LoadFixtures() error = %v (%+v), want a *FixtureError for fixtures/garden.plants.json at line %d starting %q", err, fe, tc.wantLine, tc.wantText)
			}
		})
	}
}

// A fixture answers its enricher for whoever asks, with the caller's own payload when it has one.
func TestServerAnswersFromFixtures(t *testing.T) {
	fixtures, err := LoadFixtures(fstest.MapFS{"f/garden.plants.json": {Data: []byte(
		`{"domain_type":"plant_list","payload":{"plants":["Tomato"]},"users":{"bob":{"plants":["Fern"]}}}`)}}, "f")
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Options{Fixtures: fixtures})
	for user, want := range map[string]string{"alice": "Tomato", "bob": "Fern"} {
		req := httptest.NewRequest(http.MethodPost, "/v1/enrich/garden.plants", strings.NewReader(`{"principal":"`+user+`"}`))
		req.Header.Set(ccs.HeaderPrincipal, user)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		var env ccs.RawResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", user, rec.Code, rec.Body)
		}
		if env.Principal != user || env.DomainType != "plant_list" || !strings.Contains(string(env.Payload), want) {
			t.Errorf("%s: envelope %+v, want %s's payload", user, env, want)
		}
	}
	if !Serves("garden.plants", fixtures) || !Serves("offers.search", nil) || Serves("weather.now", fixtures) {
		t.Error("Serves() disagrees with what the server answers")
	}
}
