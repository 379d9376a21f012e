package audit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/internal/audit/audittest"
)

func TestEntryJSONRoundTrip(t *testing.T) {
	for _, e := range audittest.Samples() {
		t.Run(string(e.Type()), func(t *testing.T) {
			e.Seq = 7
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatalf("Marshal() = %v", err)
			}
			var got audit.Entry
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("Unmarshal(%s) = %v", b, err)
			}
			if diff := cmp.Diff(e, got, cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
			if !strings.Contains(string(b), `"type":"`+string(e.Type())+`"`) {
				t.Errorf("Marshal() = %s, want the type named", b)
			}
		})
	}
}

func TestDecodeDetailRejects(t *testing.T) {
	tests := []struct {
		name string
		typ  audit.Type
		data string
	}{
		{"known type, wrong shape", audit.TypeTurnAccepted, `{"turn_id": 5}`},
		{"known type, not JSON", audit.TypeLimitRefusals, `{`},
		{"unknown type, not JSON", "later", `nope`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d, err := audit.DecodeDetail(tt.typ, []byte(tt.data)); err == nil {
				t.Errorf("DecodeDetail(%s, %s) = %v, want an error", tt.typ, tt.data, d)
			}
		})
	}
}

// The reader decodes what the database holds; whatever it holds, decoding does not panic and
// what decodes encodes again.
func FuzzDecodeDetail(f *testing.F) {
	for _, e := range audittest.Samples() {
		b, _ := audit.EncodeDetail(e.Detail)
		f.Add(string(e.Type()), b)
	}
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		d, err := audit.DecodeDetail(audit.Type(typ), data)
		if err != nil {
			return
		}
		if d.Type() != audit.Type(typ) {
			t.Errorf("DecodeDetail(%q).Type() = %q", typ, d.Type())
		}
		if _, err := audit.EncodeDetail(d); err != nil {
			t.Errorf("EncodeDetail(DecodeDetail(%q, %q)) = %v", typ, data, err)
		}
	})
}
