package ccsdemo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
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

// LoadFixturesDir is [LoadFixtures] of the folder dir on disk, a [*FixtureError] naming its
// file under dir as given, as the person who named the folder reads it.
func LoadFixturesDir(dir string) (map[string]Fixture, error) {
	fixtures, err := LoadFixtures(os.DirFS(dir), ".")
	var fe *FixtureError
	if errors.As(err, &fe) {
		fe.File = filepath.Join(dir, fe.File)
	}
	return fixtures, err
}

// LoadFixtures reads every <enricher id>.json in dir of fsys. A missing dir is no fixtures;
// a file that is not a valid fixture is a [*FixtureError] naming it.
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
		file := path.Join(dir, name)
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, &FixtureError{File: file, Err: err}
		}
		f, err := decodeFixture(data)
		if err != nil {
			return nil, &FixtureError{File: file, Line: jsonErrorLine(data, err), Err: err}
		}
		out[strings.TrimSuffix(name, ".json")] = f
	}
	return out, nil
}

// decodeFixture reads one fixture file strictly: unknown keys are errors, as in definitions.
func decodeFixture(data []byte) (Fixture, error) {
	var f Fixture
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, err
	}
	switch {
	case f.DomainType == "":
		return f, errors.New("domain_type is required")
	case len(f.Payload) == 0 && len(f.Users) == 0:
		return f, errors.New("payload (or users) is required")
	}
	if f.Version == "" {
		f.Version = "1.0.0"
	}
	return f, nil
}

// FixtureError is a fixture file [LoadFixtures] cannot use. File is its path in the file
// system LoadFixtures read, for the caller to show as its users know it.
type FixtureError struct {
	File string
	Line int // of the problem, for JSON syntax and type errors; 0 when not known
	Err  error
}

func (e *FixtureError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("ccsdemo: fixture %s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("ccsdemo: fixture %s: %v", e.File, e.Err)
}

func (e *FixtureError) Unwrap() error { return e.Err }

// jsonErrorLine is the 1-based line of data at which the JSON decoder failed with err, or 0
// when err carries no position (an unknown key, a missing one).
func jsonErrorLine(data []byte, err error) int {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var offset int64
	switch {
	case errors.As(err, &syn):
		offset = syn.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	default:
		return 0
	}
	offset = min(max(offset, 0), int64(len(data)))
	return 1 + bytes.Count(data[:offset], []byte("\n"))
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
