package stream

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// guardPattern is one kind of internal text the guard removes.
type guardPattern struct {
	// expr's every repetition is bounded, so each match has a maximum length; the streaming
	// scrubber relies on it. None may use ^, $ or \B, whose meaning depends on text outside
	// the match window.
	expr string
	// anchors are literals (compared after [fold]), at least one of which every match
	// contains. Text with none of them cannot match, which spares most text the regexp and
	// tells the streaming scrubber where a match may still be growing.
	anchors []string
	// lead is the most runes a match can have before the start of its anchor, not counting the
	// up to three blanks every match may start with.
	lead int
	// object marks the JSON-looking payload pattern, whose anchor is its opening brace: a
	// match is one object that cannot outlive its first closing brace (see [objectEnded]),
	// so the streaming scrubber stops holding text for it there rather than after its whole
	// maximum length.
	object bool
}

// internalPatterns match what must never reach a user: Go panics and stack frames, internal
// error codes, HTTP status phrases and JSON-looking error payloads. The guard tests fail when a
// pattern can match without one of its anchors.
var internalPatterns = []guardPattern{
	// Go runtime panics and stack traces.
	{expr: `panic: (?:runtime error|interface conversion|assignment to entry|send on closed|close of (?:closed|nil)|invalid memory|index out of range|slice bounds|nil pointer|sync: )[^\n]{0,100}`, anchors: []string{"panic: "}},
	{expr: `\[recovered\]`, anchors: []string{"[recovered]"}},
	{expr: `goroutine \d{1,9} \[[^\]\n]{0,40}\]:?`, anchors: []string{"goroutine "}},
	{expr: `created by [\w\-]{1,30}(?:/[\w.\-]{1,30}){0,3}\.[\w.*()]{1,40}`, anchors: []string{"created by "}},
	{expr: `[\w./\-]{1,80}\.go:\d{1,6}(?: \+0x[0-9a-fA-F]{1,8})?`, anchors: []string{".go:"}, lead: 80},
	{expr: `[\w./*()\-]{1,80}\((?:0x[0-9a-fA-F]{1,16}|\.\.\.)[^\n)]{0,60}\)`, anchors: []string{"(0x", "(..."}, lead: 80},
	{expr: `runtime error: [^\n]{0,80}`, anchors: []string{"runtime error: "}},
	// JSON-looking error payloads.
	{expr: `\{[^{}\n]{0,60}?"(?:error|code|status|exception|stack|trace|detail)"\s{0,2}:[^\n]{0,100}?\}{1,3}`, anchors: []string{"{"}, object: true},
	// Envelope and CCS codes.
	{expr: `(?i)"?status"?\s{0,2}[=:]\s{0,2}"?error"?`, anchors: []string{"status"}, lead: 1},
	{expr: `(?i)principal_mismatch|missing_principal|status_error|version_mismatch|bad_signature`,
		anchors: []string{"principal_mismatch", "missing_principal", "status_error", "version_mismatch", "bad_signature"}},
	// HTTP status phrases. The reason phrase is matched case-sensitively so "HTTP 500 when
	// loading" keeps its words.
	{expr: `(?i:\bHTTP(?:/\d(?:\.\d)?)? ?)[1-5]\d\d\b(?: [A-Z][a-z]{1,15}(?: [A-Z][a-z]{1,15}){0,3})?`, anchors: []string{"http"}},
	{expr: `\b[45]\d\d (?:Bad Request|Unauthorized|Payment Required|Forbidden|Not Found|Method Not Allowed|Not Acceptable|Request Timeout|Conflict|Gone|Unprocessable Entity|Too Many Requests|Internal Server Error|Not Implemented|Bad Gateway|Service Unavailable|Gateway Timeout)`,
		anchors: []string{"bad request", "unauthorized", "payment required", "forbidden", "not found", "method not allowed",
			"not acceptable", "request timeout", "conflict", "gone", "unprocessable entity", "too many requests",
			"internal server error", "not implemented", "bad gateway", "service unavailable", "gateway timeout"},
		lead: 4}, // "503 "
	{expr: `(?i)status code:? ?\d{3}`, anchors: []string{"status"}},
}

// blanks is the most blanks (spaces, tabs) a match may start with: the guard removes them with
// the token so that "failed: principal_mismatch" does not leave a double space.
const blanks = 3

// anchorSpan is what the streaming scrubber knows of one anchor: a match containing it starts
// at most lead runes before it and ends at most span runes after its start.
type anchorSpan struct {
	text       []byte // folded
	lead, span int
	alt        int  // the alternative of the combined regexp its pattern is
	object     bool // the anchor opens a JSON-looking object: see [objectEnded]
}

// scrubber removes internal tokens from user-facing text. It is immutable and safe for
// concurrent use.
type scrubber struct {
	re *regexp.Regexp
	// maxRunes is the longest possible match, in runes.
	maxRunes int
	// anchors, and byFirst: the anchors by their first folded byte.
	anchors []anchorSpan
	byFirst [256][]anchorSpan
	// alts are the alternatives the combined regexp is made of, in order; subsets caches
	// regexps of only some of them (by bit mask): a text runs only the patterns whose anchors
	// it contains, since the full alternation runs on the slow NFA engine.
	alts    []string
	subsets sync.Map // uint64 -> *regexp.Regexp
}

// newScrubber compiles the built-in patterns plus the forbidden literals (matched
// case-insensitively) into one leftmost-first alternation. One regexp, rather than one pass per
// pattern, is what makes scrubbing a stream in pieces give the same result as scrubbing it whole.
func newScrubber(forbidden []string) (*scrubber, error) {
	sc := &scrubber{}
	// Forbidden literals go first, as one alternative: an operator's exact ids win over a
	// generic pattern.
	var lits []string
	for _, f := range forbidden {
		if f = strings.TrimSpace(f); f != "" {
			lits = append(lits, `(?i:`+regexp.QuoteMeta(f)+`)`)
			sc.anchors = append(sc.anchors, anchorSpan{text: []byte(fold(f)), span: blanks + utf8.RuneCountInString(f) + 1})
		}
	}
	if len(lits) > 0 {
		sc.alts = append(sc.alts, strings.Join(lits, "|"))
	}
	for _, p := range internalPatterns {
		parsed, err := syntax.Parse(p.expr, syntax.Perl)
		if err != nil {
			return nil, fmt.Errorf("stream: guard pattern: %w", err)
		}
		n, bounded := maxMatchRunes(parsed)
		if !bounded {
			return nil, fmt.Errorf("stream: guard pattern %q has no maximum length", p.expr)
		}
		for _, a := range p.anchors {
			// +1: a \b at the end of a match looks at the rune after it.
			sc.anchors = append(sc.anchors, anchorSpan{text: []byte(fold(a)), lead: p.lead, span: blanks + n + 1, alt: len(sc.alts), object: p.object})
		}
		sc.alts = append(sc.alts, p.expr)
	}
	if len(sc.alts) > 64 {
		return nil, fmt.Errorf("stream: %d guard patterns, at most 64", len(sc.alts))
	}
	for _, a := range sc.anchors {
		sc.byFirst[a.text[0]] = append(sc.byFirst[a.text[0]], a)
	}
	re, err := sc.compile(1<<len(sc.alts) - 1)
	if err != nil {
		return nil, err
	}
	sc.re = re
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil, err
	}
	sc.maxRunes, _ = maxMatchRunes(parsed)
	return sc, nil
}

// compile builds the alternation of the alternatives in mask, in their order.
func (sc *scrubber) compile(mask uint64) (*regexp.Regexp, error) {
	var alts []string
	for i, a := range sc.alts {
		if mask&(1<<i) != 0 {
			alts = append(alts, `(?:`+a+`)`)
		}
	}
	re, err := regexp.Compile(`[ \t]{0,3}(?:` + strings.Join(alts, "|") + `)`)
	if err != nil {
		return nil, fmt.Errorf("stream: guard pattern: %w", err)
	}
	return re, nil
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

// find returns the byte ranges of every match in s, leftmost first. It runs only the
// alternatives whose anchors s contains: one that cannot match anywhere in s changes nothing
// in a leftmost-first alternation.
func (sc *scrubber) find(s string) [][]int {
	mask := anchorsIn(sc, s)
	if mask == 0 {
		return nil
	}
	re, ok := sc.subsets.Load(mask)
	if !ok {
		compiled, err := sc.compile(mask)
		if err != nil {
			return sc.re.FindAllStringIndex(s, -1) // a subset of a valid alternation compiles
		}
		re, _ = sc.subsets.LoadOrStore(mask, compiled)
	}
	return re.(*regexp.Regexp).FindAllStringIndex(s, -1)
}

// anchorsIn returns, as a bit mask of sc.alts, the alternatives whose anchors text contains:
// those that may match in it. Text as bytes is read as the string of the same bytes.
func anchorsIn[T string | []byte](sc *scrubber, text T) uint64 {
	var room [512]byte
	folded := foldBytes(room[:0], text)
	// One pass over the text, trying only the anchors that start with each byte, rather than a
	// search of the whole text per anchor: most bytes start none.
	var mask uint64
	for i, c := range folded {
		for _, a := range sc.byFirst[c] {
			if mask&(1<<a.alt) == 0 && bytes.HasPrefix(folded[i:], a.text) {
				mask |= 1 << a.alt
			}
		}
	}
	return mask
}

// holdFrom returns the byte offset in s from which a match may still be growing: text before
// it can be scrubbed and emitted now, exactly as scrubbing the whole text later would treat it.
// A match that starts before the offset is already complete in s. Plain prose holds back at
// most its last word.
func (sc *scrubber) holdFrom(s string, scratch *[]byte) int {
	folded, orig := foldIndexed(s, scratch)
	hold := len(folded)
	for i := 0; i < len(folded); i++ {
		for _, a := range sc.byFirst[folded[i]] {
			rest := folded[i:]
			switch {
			case bytes.HasPrefix(rest, a.text):
				// The anchor is here; a match containing it ends within span runes of its
				// start, which is at most lead runes (and blanks) before the anchor, and an
				// object's match ends with the object.
				if utf8.RuneCount(rest) <= a.span && !(a.object && objectEnded(rest[len(a.text):])) {
					hold = min(hold, runesBack(folded, i, a.lead+blanks))
				}
			case len(rest) < len(a.text) && bytes.HasPrefix(a.text, rest):
				// The text ends with the beginning of the anchor.
				hold = min(hold, runesBack(folded, i, a.lead+blanks))
			}
		}
	}
	// An anchor that has not arrived yet: a match may already have started in its lead, which
	// for the patterns with a lead is a run of path-like characters (a.go:12, pkg.F(0x1)), a
	// status number ("503 " before "Service Unavailable") or a quote ("status"), after up to
	// three blanks.
	end := len(folded)
	tail := end
	for tail > 0 && end-tail < blanks && isBlank(folded[tail-1]) {
		tail--
	}
	run := tail
	for run > 0 && tail-run < 80 && isPathByte(folded[run-1]) {
		run--
	}
	if run < tail || tail < end {
		hold = min(hold, runesBack(folded, run, blanks))
	}
	if n := len(folded); n >= 4 && folded[n-1] == ' ' && isDigit(folded[n-2]) && isDigit(folded[n-3]) && (folded[n-4] == '4' || folded[n-4] == '5') {
		hold = min(hold, runesBack(folded, n-4, blanks))
	}
	if n := len(folded); n > 0 && folded[n-1] == '"' { // the quote before "status"
		hold = min(hold, runesBack(folded, n-1, blanks))
	}
	if orig == nil { // ASCII: folding kept every offset
		return hold
	}
	return orig[hold]
}

// objectEnded reports whether no match of the JSON-looking payload pattern that starts at an
// opening brace can change, whatever text follows, given the text after that brace. The pattern
// is `\{[^{}\n]{0,60}?"key"\s{0,2}:[^\n]{0,100}?\}{1,3}`: its key comes before any other brace,
// so the first brace after the opening one decides. A closing brace first ends the match there,
// with the lazy repetition's shortest choice ruling out every longer one, once the run of
// closing braces is over: three of them, or followed by other text. An opening brace first (a
// nested object) may be crossed after the key, so the text is held as before. A newline ends
// every attempt too, except in the blanks right after a key's closing quote, the one place the
// pattern admits one. This is what lets a reply stream on after quoting a record.
func objectEnded(after []byte) bool {
	for i := 0; i < len(after); i++ {
		switch after[i] {
		case '{':
			return false
		case '\n':
			if !afterKey(after, i) {
				return true
			}
		case '}':
			run := 0
			for i < len(after) && after[i] == '}' && run < 3 {
				i, run = i+1, run+1
			}
			return run == 3 || i < len(after)
		}
	}
	return false
}

// afterKey reports whether s[i] is within the \s{0,2} that may follow a key's closing quote.
func afterKey(s []byte, i int) bool {
	return i >= 1 && s[i-1] == '"' || i >= 2 && isSpace(s[i-1]) && s[i-2] == '"'
}

// isSpace is the regexp's \s: [\t\n\f\r ].
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// runesBack steps back from byte offset i in s by up to n runes.
func runesBack(s []byte, i, n int) int {
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRune(s[:i])
		i -= size
	}
	return i
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isPathByte reports whether c may be in the lead of a stack frame or file:line pattern
// ([\w./*()\-]); bytes of multi-byte runes are not.
func isPathByte(c byte) bool {
	return isWordByte(c) || c == '.' || c == '/' || c == '*' || c == '(' || c == ')' || c == '-'
}

// foldIndexed is [fold] into scratch (reused; valid until its next use) with, for each byte of
// the folded text and its end, the offset in s of the rune it came from: folding may change a
// rune's length in bytes. For ASCII text, the common case, no offset changes and orig is nil.
func foldIndexed(s string, scratch *[]byte) (folded []byte, orig []int) {
	b := (*scratch)[:0]
	if cap(b) < len(s) { // at once, rather than growing it byte by byte
		b = make([]byte, 0, len(s)+len(s)/2)
	}
	defer func() { *scratch = b }()
	i := 0
	for ; i < len(s) && s[i] < utf8.RuneSelf; i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	if i == len(s) {
		return b, nil
	}
	orig = make([]int, i, len(s)+1)
	for j := range orig {
		orig[j] = j
	}
	for j, r := range s[i:] {
		f := foldRune(r)
		b = utf8.AppendRune(b, f)
		for range utf8.RuneLen(f) {
			orig = append(orig, i+j)
		}
	}
	return b, append(orig, len(s))
}

// foldBytes appends fold(s) to dst. ASCII text, nearly all of it, is folded a byte at a time
// (for ASCII, folding is upper-casing: K and S are the least runes of their orbits).
func foldBytes[T string | []byte](dst []byte, s T) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return append(dst[:0], fold(string(s))...)
		}
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// fold maps every rune of s to the smallest rune of its case-folding orbit, the equivalence
// (?i) matching uses, so a case-insensitive match of an anchor in s is a plain match in
// fold(s), and a case-sensitive one stays one.
func fold(s string) string { return strings.Map(foldRune, s) }

func foldRune(r rune) rune {
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

// maxPendingBytes caps the held-back text when no safe cut point appears (one endless word).
const maxPendingBytes = 16 << 10

// streamScrubber scrubs text that arrives in pieces. It holds back only what a match may still
// be growing into ([scrubber.holdFrom]): for prose, the word being written. It cuts only outside
// any match and after a non-word rune: there the regexp sees the same context (\b included) on
// both sides of the cut, so the pieces it emits concatenate to scrub(whole text).
type streamScrubber struct {
	sc      *scrubber
	pending string
	scratch []byte // the folded pending text, reused
}

// write adds text and returns what is now safe to emit, scrubbed, and the number of matches.
func (st *streamScrubber) write(text string) (string, int) {
	st.pending += text
	limit := st.sc.holdFrom(st.pending, &st.scratch)
	force := len(st.pending) > maxPendingBytes
	if force {
		// One endless run with no safe cut: give up exactness at a rune boundary past any
		// possible match rather than hold the stream forever.
		limit = len(st.pending)
		for range st.sc.maxRunes + 2 {
			_, size := utf8.DecodeLastRuneInString(st.pending[:limit])
			limit -= size
		}
	}
	if limit <= 0 {
		return "", 0
	}
	locs := st.sc.find(st.pending)
	cut := safeCut(st.pending, locs, limit, force)
	if cut <= 0 {
		return "", 0
	}
	var done [][]int
	for _, l := range locs {
		if l[1] > cut {
			break
		}
		done = append(done, l)
	}
	// A fresh string: the emitted text outlives the turn's buffers in every follower's log.
	out := strings.Clone(cutOut(st.pending[:cut], done))
	st.pending = st.pending[cut:] // the next write copies it into a new string anyway
	return out, len(done)
}

// flush scrubs and returns everything held back: the text has ended.
func (st *streamScrubber) flush() (string, int) {
	if st.pending == "" { // the end, and every flush after it
		return "", 0
	}
	out, n := st.sc.scrub(st.pending)
	st.pending = ""
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
