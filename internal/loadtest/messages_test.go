package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadMessages(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		want    []string
		wantErr string
	}{
		{"lines, blanks and comments", "# a mix\nhow many points do I have?\n\n  where is my order  \n# done\n", []string{"how many points do I have?", "where is my order"}, ""},
		{"no final newline", "hi", []string{"hi"}, ""},
		{"only comments", "# nothing\n\n", nil, "holds no message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "messages.txt")
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := readMessages(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("readMessages() = %q, %v, want an error saying %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("readMessages() = %q, %v, want %q", got, err, tt.want)
			}
		})
	}
	if _, err := readMessages(filepath.Join(t.TempDir(), "absent.txt")); err == nil || !strings.HasPrefix(err.Error(), "-messages:") {
		t.Errorf("readMessages(absent) = %v, want an error naming -messages", err)
	}
}

func TestUserNamesDifferByRun(t *testing.T) {
	first, second := newUserNames(), newUserNames()
	one, again, two := first(1), first(1), first(2)
	if one != again || one == two {
		t.Fatalf("one run names turn 1 %q and %q, turn 2 %q: want one name per turn", one, again, two)
	}
	if first(1) == second(1) {
		t.Errorf("two runs both name turn 1 %q: a second run would sign in as the first run's users", first(1))
	}
}
