package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestMemoryRun: -memory-turns runs exactly that many turns in process and prints a row of
// heap and RSS at the start and after each -memory-every turns, with no failed turn.
func TestMemoryRun(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"-stores", "memory", "-concurrency", "4", "-memory-turns", "40", "-memory-every", "20"}
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run(%q) = %v\n%s", args, err, stderr.String())
	}
	var rows []string
	for line := range strings.Lines(stdout.String()) {
		if strings.HasPrefix(line, "| memory |") {
			rows = append(rows, line)
		}
	}
	if len(rows) != 3 {
		t.Fatalf("rows = %q, want 3 (0, 20 and 40 turns)", rows)
	}
	for i, want := range []string{"| memory | 0 |", "| memory | 20 |", "| memory | 40 |"} {
		if !strings.HasPrefix(rows[i], want) {
			t.Errorf("row %d = %q, want it to start %q", i, rows[i], want)
		}
		if !strings.HasSuffix(strings.TrimSpace(rows[i]), "| 0 |") {
			t.Errorf("row %d = %q, want 0 errors", i, rows[i])
		}
	}
}
