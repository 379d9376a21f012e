package definitions

import (
	"strings"
	"testing"
)

// tidy skips the blank-line pattern when no run of three line breaks is left once lines are
// trimmed: it must give what the pattern gives on every layout.
func TestTidySkipsThePatternOnlyWhenItCannotMatch(t *testing.T) {
	always := func(s string) string {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " \t")
		}
		return strings.TrimSpace(blankLines.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
	}
	for _, s := range []string{"", "a", "a\nb", "a\n\nb", "a\n \nb", "a\n\t \n \nb", "a\n\n\nb", " a \n\n\n\n b ",
		"a\r\n\r\n\r\nb", "a \n \n\t\n b\n\n", "\n\n\na"} {
		if got, want := tidy(s), always(s); got != want {
			t.Errorf("tidy(%q) = %q, want %q", s, got, want)
		}
	}
}

// BenchmarkTidy tidies a rendered answer of a few lines with no blank-line run.
func BenchmarkTidy(b *testing.B) {
	s := "You have 12,450 points.  \n2,000 of them expire on 31 December.\nPending: 300 points from your last order. \n"
	b.ReportAllocs()
	for b.Loop() {
		tidy(s)
	}
}
