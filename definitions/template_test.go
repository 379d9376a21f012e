package definitions_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/definitions"
)

func TestPlaceholders(t *testing.T) {
	tests := []struct {
		text    string
		want    []string
		wantErr bool
	}{
		{text: "Searching offers…"},
		{text: "Searching offers for {query}…", want: []string{"query"}},
		{text: "{from} to {to}, then {from} again", want: []string{"from", "to"}},
		{text: "{_private}", want: []string{"_private"}},
		{text: "{}", wantErr: true},
		{text: "{Query}", wantErr: true},
		{text: "{two words}", wantErr: true},
		{text: "open {query", wantErr: true},
		{text: "close query}", wantErr: true},
		{text: "nested {a{b}}", wantErr: true},
		{text: "{a}}", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, err := definitions.Placeholders(tt.text)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Placeholders(%q) error = %v, want error %v", tt.text, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Placeholders(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}
