package stream

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// internalPatterns match what must never reach a user: Go panics and stack frames, internal
// error codes, HTTP status phrases and JSON-looking error payloads. Every repetition is
// bounded, so each pattern has a maximum match length; the streaming scrubber relies on it.
// None may use ^, $ or \B, whose meaning depends on text outside the match window.
var internalPatterns = []string{
	// Go runtime panics and stack traces.
	`panic: (?:runtime error|interface conversion|assignment to entry|send on closed|close of (?:closed|nil)|invalid memory|index out of range|slice bounds|nil pointer|sync: )[^\n]{0,100}`,
	`\[recovered\]`,
	`goroutine \d{1,9} \[[^\]\n]{0,40}\]:?`,
	`created by [\w\-]{1,30}(?:/[\w.\-]{1,30}){0,3}\.[\w.*()]{1,40}`,
	`[\w./\-]{1,80}\.go:\d{1,6}(?: \+0x[0-9a-fA-F]{1,8})?`,
	`[\w./*()\-]{1,80}\((?:0x[0-9a-fA-F]{1,16}|\.\.\.)[^\n)]{0,60}\)`,
	`runtime error: [^\n]{0,80}`,
	// JSON-looking error payloads.
	`\{[^{}\n]{0,60}?"(?:error|code|status|exception|stack|trace|detail)"\s{0,2}:[^\n]{0,100}?\}{1,3}`,
	// Envelope and CCS codes.
	`(?i)"?status"?\s{0,2}[=:]\s{0,2}"?error"?`,
	`(?i)principal_mismatch|missing_principal|status_error|version_mismatch|bad_signature`,
	// HTTP status phrases.
	// The reason phrase is matched case-sensitively so "HTTP 500 when loading" keeps its words.
	`(?i:\bHTTP(?:/\d(?:\.\d)?)? ?)[1-5]\d\d\b(?: [A-Z][a-z]{1,15}(?: [A-Z][a-z]{1,15}){0,3})?`,
	`\b[45]\d\d (?:Bad Request|Unauthorized|Payment Required|Forbidden|Not Found|Method Not Allowed|Not Acceptable|Request Timeout|Conflict|Gone|Unprocessable Entity|Too Many Requests|Internal Server Error|Not Implemented|Bad Gateway|Service Unavailable|Gateway Timeout)`,
	`(?i)status code:? ?\d{3}`,
}

// internalAnchors are literals (compared after [fold]), at least one of which every match of
// internalPatterns contains. Text with none of them cannot match, which spares most text the
// regexp: a large alternation runs on the slow NFA engine. Keep them in step with the patterns;
// the guard tests fail when a pattern loses its anchor.
var internalAnchors = []string{
	"panic: ", "[recovered]", "goroutine ", "created by ", ".go:", "(0x", "(...", "runtime error: ",
	"{", "status", "principal_mismatch", "missing_principal", "version_mismatch", "bad_signature", "http",
	"bad request", "unauthorized", "payment required", "forbidden", "not found", "method not allowed",
	"not acceptable", "request timeout", "conflict", "gone", "unprocessable entity", "too many requests",
	"internal server error", "not implemented", "bad gateway", "service unavailable", "gateway timeout",
}

// scrubber removes internal tokens from user-facing text. It is immutable and safe for
// concurrent use.
type scrubber struct {
	re *regexp.Regexp
	// maxRunes is the longest possible match, in runes.
	maxRunes int
	// anchors are folded literals; a text that contains none of them has no match.
	anchors []string
}

// newScrubber compiles the built-in patterns plus the forbidden literals (matched
// case-insensitively) into one leftmost-first alternation. One regexp, rather than one pass per
// pattern, is what makes scrubbing a stream in pieces give the same result as scrubbing it whole.
func newScrubber(forbidden []string) (*scrubber, error) {
	alts := make([]string, 0, len(internalPatterns)+len(forbidden))
	anchors := make([]string, 0, len(internalAnchors)+len(forbidden))
	for _, a := range internalAnchors {
		anchors = append(anchors, fold(a))
	}
	// Forbidden literals go first: an operator's exact ids win over a generic pattern.
	for _, f := range forbidden {
		if f = strings.TrimSpace(f); f != "" {
			alts = append(alts, `(?i:`+regexp.QuoteMeta(f)+`)`)
			anchors = append(anchors, fold(f))
		}
	}
	for _, p := range internalPatterns {
		alts = append(alts, `(?:`+p+`)`)
	}
	expr := `[ \t]{0,3}(?:` + strings.Join(alts, "|") + `)`
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("stream: guard pattern: %w", err)
	}
	n, bounded := maxMatchRunes(parsed)
	if !bounded {
		return nil, fmt.Errorf("stream: guard pattern has no maximum length")
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("stream: guard pattern: %w", err)
	}
	return &scrubber{re: re, maxRunes: n, anchors: anchors}, nil
}

// maxMatchRunes is the longest match re can produce, in runes, and false if it is unbounded.
func maxMatchRunes(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune), true
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxMatchRunes(re.Sub[0])
	case syntax.OpConcat:
		total := 0
		for _, s := range re.Sub {
			n, ok := maxMatchRunes(s)
			if !ok {
				return 0, false
			}
			total += n
		}
		return total, true
	case syntax.OpAlternate:
		most := 0
		for _, s := range re.Sub {
			n, ok := maxMatchRunes(s)
			if !ok {
				return 0, false
			}
			most = max(most, n)
		}
		return most, true
	case syntax.OpRepeat:
		if re.Max < 0 {
			return 0, false
		}
		n, ok := maxMatchRunes(re.Sub[0])
		return n * re.Max, ok
	case syntax.OpStar, syntax.OpPlus:
		return 0, false
	}
	return 0, true // empty-width assertions and empty matches
}

// scrub removes every match from s and returns the result and the number of matches.
func (sc *scrubber) scrub(s string) (string, int) {
	locs := sc.find(s)
	return cutOut(s, locs), len(locs)
}

// find returns the byte ranges of every match in s, leftmost first.
func (sc *scrubber) find(s string) [][]int {
	folded := fold(s)
	for _, a := range sc.anchors {
		if strings.Contains(folded, a) {
			return sc.re.FindAllStringIndex(s, -1)
		}
	}
	return nil
}

// fold maps every rune of s to the smallest rune of its case-folding orbit, the equivalence
// (?i) matching uses, so a case-insensitive match of an anchor in s is a plain match in
// fold(s), and a case-sensitive one stays one.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			if r != 'K' && r != 'S' { // the two ASCII letters whose orbit has a non-ASCII rune
				return r
			}
		}
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

// cutOut returns s without the byte ranges in locs (sorted, disjoint).
func cutOut(s string, locs [][]int) string {
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := 0
	for _, l := range locs {
		b.WriteString(s[prev:l[0]])
		prev = l[1]
	}
	b.WriteString(s[prev:])
	return b.String()
}

// emitEvery is how much text, in runes, the stream scrubber gathers beyond its hold-back
// before it scans again.
const emitEvery = 32

// maxPendingBytes caps the held-back text when no safe cut point appears (one endless word).
const maxPendingBytes = 16 << 10

// streamScrubber scrubs text that arrives in pieces. It holds back a tail longer than the
// longest match so that a token split across pieces is still caught, and it only cuts outside
// any match and after a non-word rune: there the regexp sees the same context (\b included) on
// both sides of the cut, so the pieces it emits concatenate to scrub(whole text).
type streamScrubber struct {
	sc      *scrubber
	pending string
	// nextScan is the pending length, in runes, at which to scan again after a scan that
	// found no cut point; it grows geometrically so a long uncuttable run costs linear time.
	nextScan int
}

// write adds text and returns what is now safe to emit, scrubbed, and the number of matches.
func (st *streamScrubber) write(text string) (string, int) {
	st.pending += text
	hold := st.sc.maxRunes + 2
	// Scanning costs a pass over the held tail, so wait for a little more than the hold; the
	// client's lag grows by at most emitEvery runes.
	runes := utf8.RuneCountInString(st.pending)
	if runes < max(hold+emitEvery, st.nextScan) {
		return "", 0
	}
	limit := len(st.pending)
	for range hold {
		_, size := utf8.DecodeLastRuneInString(st.pending[:limit])
		limit -= size
	}
	locs := st.sc.find(st.pending)
	cut := safeCut(st.pending, locs, limit, len(st.pending) > maxPendingBytes)
	if cut <= 0 {
		st.nextScan = runes + runes/4
		return "", 0
	}
	st.nextScan = 0
	var done [][]int
	for _, l := range locs {
		if l[1] > cut {
			break
		}
		done = append(done, l)
	}
	out := cutOut(st.pending[:cut], done)
	st.pending = st.pending[cut:]
	return out, len(done)
}

// flush scrubs and returns everything held back: the text has ended.
func (st *streamScrubber) flush() (string, int) {
	out, n := st.sc.scrub(st.pending)
	st.pending, st.nextScan = "", 0
	return out, n
}

// safeCut finds the largest cut <= limit that is not inside a match and follows a whole rune
// that is not an ASCII word character (for \b every other rune is a non-word character, like
// the start of the text). With force it settles for any rune boundary outside a match.
func safeCut(s string, locs [][]int, limit int, force bool) int {
	inside := func(i int) bool {
		for _, l := range locs {
			if l[0] < i && i < l[1] {
				return true
			}
			if l[0] >= i {
				break
			}
		}
		return false
	}
	for i := limit; i > 0; i-- {
		if i < len(s) && !utf8.RuneStart(s[i]) {
			continue
		}
		if c := s[i-1]; (c >= utf8.RuneSelf || !isWordByte(c)) && !inside(i) {
			return i
		}
	}
	if !force {
		return 0
	}
	for i := limit; i > 0; i-- {
		if utf8.RuneStart(s[i]) && !inside(i) {
			return i
		}
	}
	return 0
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
