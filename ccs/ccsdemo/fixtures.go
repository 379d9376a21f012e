package ccsdemo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Fixture is what the demo CCS answers for an enricher it does not know itself: a vertical
// team's agent can be tried end to end before its real CCS exists. It is read from a file
// named <enricher id>.json (see [LoadFixtures]):
//
//	{
//	  "domain_type": "plant_list",
//	  "version": "1.0.0",
//	  "payload": {"plants": [{"name": "Tomato", "water_every_days": 2}]},
//	  "users": {"bob": {"plants": []}}
//	}
//
// users, optional, gives some principals a payload of their own; everyone else gets payload.
// The envelope is made for the caller's principal, as the demo's own enrichers are.
type Fixture struct {
	DomainType string                     `json:"domain_type"`
	Version    string                     `json:"version,omitempty"`
	Payload    json.RawMessage            `json:"payload"`
	Users      map[string]json.RawMessage `json:"users,omitempty"`
}

// FixturesDir is the folder, beside the agent definitions, that [LoadFixtures] reads.
const FixturesDir = "fixtures"

// LoadFixtures reads every <enricher id>.json in dir of fsys. A missing dir is no fixtures;
// a file that is not a valid fixture is an error naming it.
func LoadFixtures(fsys fs.FS, dir string) (map[string]Fixture, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ccsdemo: fixtures: %w", err)
	}
	out := map[string]Fixture{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("ccsdemo: fixture %s: %w", name, err)
		}
		var f Fixture
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("ccsdemo: fixture %s: %w", path.Join(dir, name), err)
		}
		switch {
		case f.DomainType == "":
			return nil, fmt.Errorf("ccsdemo: fixture %s: domain_type is required", path.Join(dir, name))
		case len(f.Payload) == 0 && len(f.Users) == 0:
			return nil, fmt.Errorf("ccsdemo: fixture %s: payload (or users) is required", path.Join(dir, name))
		}
		if f.Version == "" {
			f.Version = "1.0.0"
		}
		out[strings.TrimSuffix(name, ".json")] = f
	}
	return out, nil
}

// enricher serves the fixture as the demo enricher id.
func (f Fixture) enricher(id string) Enricher {
	return Enricher{ID: id, DomainType: f.DomainType, Version: f.Version, Source: "fixture", serve: func(r request) (any, error) {
		if p, ok := f.Users[r.principal]; ok {
			return p, nil
		}
		if len(f.Payload) == 0 {
			return json.RawMessage(`{}`), nil
		}
		return f.Payload, nil
	}}
}

// Serves reports whether the demo CCS, with these fixtures, answers enricher id.
func Serves(id string, fixtures map[string]Fixture) bool {
	_, own := findEnricher(id)
	_, fixture := fixtures[id]
	return own || fixture
}
