package offline

import (
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/ask"
)

// indexLine finds a line where strings.Index does, whatever comes before it.
func TestIndexLine(t *testing.T) {
	line := ask.LocaleLine
	text := line[1:]
	for _, s := range []string{
		"", "\n", text, line, "a" + line, text + line, "x" + text + "\n" + text + "y",
		"You help.\nBe brief." + line + "en-GB" + line + "fr",
		text + "\n\n" + text, "\n" + strings.Repeat("ab\n", 50) + text,
	} {
		if got, want := indexLine(s, line), strings.Index(s, line); got != want {
			t.Errorf("indexLine(%q) = %d, want %d", s, got, want)
		}
	}
}
