package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/definitions"
)

// checkAnswers runs every tool's answer template over what the embedded demo CCS answers for
// that tool (its own enrichers, or the fixtures beside the definitions), for every user the
// demo knows, and returns each failure as "file:line: message". A template is written
// against data it has never seen until then: a misspelt key shows here, not in a reply.
func checkAnswers(set *definitions.Set, fixtures map[string]ccsdemo.Fixture) []string {
	demo := ccsdemo.New(ccsdemo.Options{Fixtures: fixtures})
	users := []string{ccsdemo.Alice, ccsdemo.Bob}
	for _, f := range fixtures {
		for u := range f.Users {
			if !slices.Contains(users, u) {
				users = append(users, u)
			}
		}
	}
	var out []string
	for _, d := range set.All() {
		for _, t := range d.Tools {
			tmpl, err := t.AnswerTemplate()
			if err != nil || tmpl == nil {
				continue // a template that does not parse is already a load problem
			}
			for _, user := range users {
				payload, ok := samplePayload(demo, t, user)
				if !ok {
					continue
				}
				if _, err := tmpl.Render(payload, definitions.AnswerInput{Question: t.Description}); err != nil {
					out = append(out, fmt.Sprintf("%v (tool %s, over the demo data of %s)", err, t.Name, user))
					break // one user's failure says it; the others would repeat it
				}
			}
		}
	}
	return out
}

// samplePayload asks the demo CCS for what tool t returns to user, filling required string
// parameters with a placeholder. ok is false when the demo does not answer.
func samplePayload(demo *ccsdemo.Server, t definitions.Tool, user string) (json.RawMessage, bool) {
	params := map[string]any{}
	if req, _ := t.Parameters["required"].([]any); req != nil {
		for _, name := range req {
			if s, ok := name.(string); ok {
				params[s] = "sample"
			}
		}
	}
	body, err := json.Marshal(ccs.EnricherRequest{Principal: user, EnricherID: t.Enricher, Params: params})
	if err != nil {
		return nil, false
	}
	r, err := http.NewRequest(http.MethodPost, ccs.EnrichPathPrefix+t.Enricher, bytes.NewReader(body))
	if err != nil {
		return nil, false
	}
	r.Header.Set(ccs.HeaderPrincipal, user)
	w := &recorder{header: http.Header{}, code: http.StatusOK}
	demo.ServeHTTP(w, r)
	if w.code != http.StatusOK {
		return nil, false
	}
	var env struct {
		Payload json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(w.body.Bytes(), &env) != nil || len(env.Payload) == 0 {
		return nil, false
	}
	return env.Payload, true
}

var _ http.ResponseWriter = (*recorder)(nil)

// recorder keeps what an in-process handler answers. It stands in for httptest's, which
// would link the test server and its certificates into the binary for this one call.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(code int)        { r.code = code }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
