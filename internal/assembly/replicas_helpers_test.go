package assembly

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/llm/offline"
)

// Helpers of the replica tests: a scratch PostgreSQL schema per test, and two app instances on it.

// postgresDSNEnv names a PostgreSQL database the tests may create schemas in; without it the
// replica tests are skipped. The same variable as the store package's tests.
const postgresDSNEnv = "SWITCHBOARD_TEST_POSTGRES_DSN"

var replicaSchemaSeq atomic.Int64

// replicaSchemaDSN creates a schema of its own for one test, dropped when the test ends (after
// every app using it has closed: cleanups run last-registered first), and returns a DSN whose
// connections use it.
func replicaSchemaDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv(postgresDSNEnv)
	if dsn == "" {
		t.Skipf("%s not set", postgresDSNEnv)
	}
	admin, err := sql.Open("pgx", dsn) // registered by internal/store, which the app imports
	if err != nil {
		t.Fatalf("sql.Open() = %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	schema := fmt.Sprintf("apptest_%d_%d", time.Now().UnixNano(), replicaSchemaSeq.Add(1))
	if _, err := admin.ExecContext(t.Context(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil { // t.Context is done by now
			t.Errorf("drop schema: %v", err)
		}
	})
	// pgx passes settings it does not know to the server as run-time parameters.
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + "search_path=" + schema
	}
	return dsn + " search_path=" + schema
}

// countedModel is the offline model, counting its calls: a replica whose model is never called
// never ran a turn.
type countedModel struct {
	next  llms.Model
	calls atomic.Int64
}

func (m *countedModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	m.calls.Add(1)
	return m.next.GenerateContent(ctx, msgs, opts...)
}

func (m *countedModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// replicaPair is two replicas on one store. Both call the same held CCS, so its demo counts
// every dispatch wherever it ran.
type replicaPair struct {
	a, b   *testApp
	held   *heldCCS
	bModel *countedModel // every model of B
}

func newReplicaPair(t *testing.T) replicaPair {
	t.Helper()
	dsn := replicaSchemaDSN(t)
	held := newHeldCCS(t)
	edit := func(c *config.Config) {
		c.Store = config.Store{Driver: "postgres", DSN: dsn}
		c.CCS.URL = held.srv.URL
	}
	bModel := &countedModel{next: offline.New()}
	a := newStreamApp(t, streamSetup{edit: edit})
	b := newStreamApp(t, streamSetup{edit: edit, models: map[string]llms.Model{"default": bModel}})
	return replicaPair{a: a, b: b, held: held, bModel: bModel}
}

// checkBRanNothing fails unless replica B made no model call and the CCS saw exactly the calls
// in want (A's), so no turn was dispatched twice.
func (r replicaPair) checkBRanNothing(t *testing.T, want ...string) {
	t.Helper()
	if n := r.bModel.calls.Load(); n != 0 {
		t.Errorf("replica B made %d model calls, want none: it ran no turn", n)
	}
	checkCCSCalls(t, r.held.demo, want...)
}

// created is the 202 body of POST /v1/turns.
type created struct {
	TurnID    string `json:"turn_id"`
	EpisodeID string `json:"episode_id"`
	EventsURL string `json:"events_url"`
}

// postTurnKeyed posts a turn with an Idempotency-Key. It reports rather than fails, so that
// goroutines may call it.
func postTurnKeyed(ctx context.Context, ta *testApp, tok, message, key string) (int, created, error) {
	body, _ := json.Marshal(map[string]string{"message": message})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ta.srv.URL+"/v1/turns", bytes.NewReader(body))
	if err != nil {
		return 0, created{}, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Idempotency-Key", key)
	resp, err := ta.srv.Client().Do(req)
	if err != nil {
		return 0, created{}, err
	}
	defer resp.Body.Close()
	var c created
	if resp.StatusCode == http.StatusAccepted {
		err = json.NewDecoder(resp.Body).Decode(&c)
	}
	return resp.StatusCode, c, err
}

// startTurn posts a turn to ta and returns its 202 body.
func startTurn(t *testing.T, ta *testApp, tok, message string) created {
	t.Helper()
	resp := ta.do(t, http.MethodPost, "/v1/turns", tok, map[string]string{"message": message}, nil)
	var c created
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /v1/turns = %d, %v", resp.StatusCode, err)
	}
	return c
}

// eventsRequest is a GET of a turn's events on ta: path is an events_url (with its turn token)
// or, with a bearer token, the plain events path; after > 0 resumes with Last-Event-ID.
func eventsRequest(ctx context.Context, ta *testApp, path, bearer string, after int) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ta.srv.URL+path, nil)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if after > 0 {
		req.Header.Set("Last-Event-ID", strconv.Itoa(after))
	}
	return req
}

// errorCode returns the code of an API error body.
func errorCode(t *testing.T, resp *http.Response) string {
	t.Helper()
	var body struct{ Error struct{ Code string } }
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("error body %q: %v", b, err)
	}
	return body.Error.Code
}

// checkCCSCalls fails unless demo saw exactly the calls in want.
func checkCCSCalls(t *testing.T, demo *ccsdemo.Server, want ...string) {
	t.Helper()
	var got []string
	for _, c := range demo.Calls() {
		got = append(got, c.EnricherID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CCS calls (-want +got):\n%s", diff)
	}
}
