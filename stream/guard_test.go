package stream

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestScrubberPatternsAreBounded(t *testing.T) {
	sc, err := newScrubber([]string{"offers.search", "rewards.balance"})
	if err != nil {
		t.Fatalf("newScrubber() error = %v", err)
	}
	// The hold-back must stay short or streamed replies lag visibly behind the model.
	if sc.maxRunes > 200 {
		t.Errorf("longest match = %d runes, want <= 200", sc.maxRunes)
	}
	if sc.re.MatchString("") {
		t.Error("scrubber matches the empty string")
	}
}

func TestScrubberPrefilterKeepsEveryMatch(t *testing.T) {
	sc, err := newScrubber([]string{"offers.search", "Café.Menu"})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range scrubSamples {
		if got, want := sc.find(in), sc.re.FindAllStringIndex(in, -1); !cmp.Equal(got, want) {
			t.Errorf("find(%q) = %v, want %v", in, got, want)
		}
	}
}

// scrubSamples hold one hit of each pattern, in odd cases.
var scrubSamples = []string{
	"panic: runtime error: x", "[recovered]", "goroutine 1 [running]:", "created by main.run", "a/b.go:12",
	"pkg.F(0xc000, 1)", "pkg.F(...)", "runtime error: index", `{"error":"x"}`, `{"a":1,"code":2}`,
	"STATUS = 'ERROR'", "ſtatus=error", "Principal_Mismatch", "MISSING_PRINCIPAL", "Status_Error",
	"VERSION_MISMATCH", "bad_ſignature", "http/1.1 500", "HtTp 404", "404 Not Found", "503 Service Unavailable",
	"Status Code 500", "OFFERS.SEARCH", "offers.ſearch", "CAFÉ.MENU", "café.menu",
}

func TestGuardScrubsText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean", "Here are three offers for running shoes.", "Here are three offers for running shoes."},
		{"enricher id", "I used offers.search to find these.", "I used to find these."},
		{"enricher id any case", "Source: Rewards.Balance", "Source:"},
		{"codes", "Points failed: principal_mismatch, then missing_principal and STATUS_ERROR.", "Points failed:, then and."},
		{"more codes", "version_mismatch bad_signature ok", " ok"},
		{"status error", `The call returned status="error" sadly`, "The call returned sadly"},
		{"json status", `got "status": "error" back`, "got back"},
		{"http status", "Rewards gave HTTP 500 when loading your points", "Rewards gave when loading your points"},
		{"http reason", "HTTP/1.1 503 Service Unavailable.", "."},
		{"bare reason", "It said 403 Forbidden today", "It said today"},
		{"status code", "failed with status code 502", "failed with"},
		{"panic", "panic: runtime error: invalid memory address or nil pointer dereference\nSorry.", "\nSorry."},
		{"goroutine", "goroutine 17 [running]:\nmain.main()", "\nmain.main()"},
		{"frame", "at github.com/x/y/ccs.(*Client).Do(0xc000123456, {0x1a2b3c})\n", "at\n"},
		{"file line", "see /home/u/switchboard/ccs/client.go:123 +0x1d", "see"},
		{"created by", "created by net/http.(*Server).Serve in", " in"},
		{"json blob", `Sorry {"error":{"code":"principal_mismatch","message":"x"}} there.`, "Sorry there."},
		{"json blob other key first", `Sorry {"ok":false,"status":"error"}.`, "Sorry."},
		{"words that look close stay", "Don't panic: your points are safe. Status: fine. 500 points earned.", "Don't panic: your points are safe. Status: fine. 500 points earned."},
		{"created by a person stays", "This list was created by your advisor.", "This list was created by your advisor."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out recorderSink
			g := NewGuard(&out, GuardConfig{Forbidden: []string{"offers.search", "rewards.balance", " "}})
			g.Publish(Status{Text: tt.in})
			g.Publish(ReplyDelta{Text: tt.in})
			g.Publish(ReplyCompleted{Text: tt.in})
			// The reply may leave in several deltas (the guard emits what is safe at once):
			// compare what the client assembles.
			var got []Event
			var deltas strings.Builder
			for _, ev := range out.evs {
				if d, ok := ev.(ReplyDelta); ok {
					if d.Text == "" {
						t.Errorf("an empty delta was emitted")
					}
					deltas.WriteString(d.Text)
					continue
				}
				if _, ok := ev.(ReplyCompleted); ok && deltas.Len() > 0 {
					got = append(got, ReplyDelta{Text: deltas.String()})
				}
				got = append(got, ev)
			}
			want := []Event{ReplyDelta{Text: tt.want}, ReplyCompleted{Text: tt.want}}
			if w := strings.TrimSpace(tt.want); w != "" {
				want = append([]Event{Status{Text: w}}, want...)
			}
			if tt.want == "" {
				want = want[:len(want)-2]
				want = append(want, ReplyCompleted{Text: ""})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Guard(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if changed := tt.in != tt.want; changed != (g.Scrubbed() > 0) {
				t.Errorf("Scrubbed() = %d for %q -> %q", g.Scrubbed(), tt.in, tt.want)
			}
		})
	}
}

type recorderSink struct{ evs []Event }

func (r *recorderSink) Publish(ev Event) { r.evs = append(r.evs, ev) }

// replyOf joins the deltas a sink received and returns it with the ReplyCompleted text.
func replyOf(t *testing.T, evs []Event) (deltas, completed string) {
	t.Helper()
	var b strings.Builder
	for _, ev := range evs {
		switch e := ev.(type) {
		case ReplyDelta:
			if e.Text == "" {
				t.Error("Guard emitted an empty delta")
			}
			b.WriteString(e.Text)
		case ReplyCompleted:
			completed = e.Text
		}
	}
	return b.String(), completed
}

func TestGuardCatchesTokensSplitAcrossDeltas(t *testing.T) {
	reply := "Your points are unavailable (principal_mismatch) right now. " + strings.Repeat("Meanwhile here are offers. ", 20) +
		"The shop said HTTP 503 Service Unavailable and offers.search failed. goroutine 12 [running]: done."
	want := "Your points are unavailable () right now. " + strings.Repeat("Meanwhile here are offers. ", 20) +
		"The shop said and failed. done."
	for _, size := range []int{1, 2, 3, 7, 16, 64, len(reply)} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			var out recorderSink
			g := NewGuard(&out, GuardConfig{Forbidden: []string{"offers.search"}})
			for _, piece := range chunks(reply, size) {
				g.Publish(ReplyDelta{Text: piece})
			}
			g.Publish(ReplyCompleted{Text: reply})
			g.Publish(TurnCompleted{TurnID: "t", Outcome: OutcomeOK})
			deltas, completed := replyOf(t, out.evs)
			if deltas != want {
				t.Errorf("deltas = %q, want %q", deltas, want)
			}
			if completed != deltas {
				t.Errorf("ReplyCompleted = %q, want the deltas %q", completed, deltas)
			}
			if g.Scrubbed() != 4 {
				t.Errorf("Scrubbed() = %d, want 4", g.Scrubbed())
			}
		})
	}
}

func TestGuardFlushesTailBeforeEnd(t *testing.T) {
	for _, end := range []Event{Error{Message: "Rewards are down (HTTP 500)."}, TurnCompleted{TurnID: "t"}} {
		var out recorderSink
		g := NewGuard(&out, GuardConfig{})
		g.Publish(ReplyDelta{Text: "Partial reply"})
		g.Publish(end)
		if len(out.evs) != 2 {
			t.Fatalf("events = %v, want the held tail then %s", out.evs, end.Name())
		}
		if diff := cmp.Diff(ReplyDelta{Text: "Partial reply"}, out.evs[0]); diff != "" {
			t.Errorf("tail before %s (-want +got):\n%s", end.Name(), diff)
		}
	}
}

func TestGuardErrorMessages(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Rewards are unavailable right now.", "Rewards are unavailable right now."},
		{"principal_mismatch", genericFailure},
		{`{"error":"boom"}`, genericFailure},
		{"HTTP 500: missing_principal", genericFailure},
		{"Rewards are down (HTTP 500).", "Rewards are down ()."},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var out recorderSink
			NewGuard(&out, GuardConfig{}).Publish(Error{Message: tt.in, IsFinal: true})
			if diff := cmp.Diff([]Event{Error{Message: tt.want, IsFinal: true}}, out.evs); diff != "" {
				t.Errorf("Error(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// FuzzGuardSplit checks that scrubbing a reply delivered in pieces gives exactly what
// scrubbing it whole gives, wherever the pieces are cut.
func FuzzGuardSplit(f *testing.F) {
	f.Add("Failed with principal_mismatch and HTTP 500 Internal Server Error.", uint8(3))
	f.Add(`x {"error":"e"} goroutine 1 [running]: a.go:12 offers.search`, uint8(1))
	f.Add("HTTP 5000 xprincipal_mismatch status = error", uint8(5))
	f.Add("ſtatus=error OFFERS.ſearch \u212A", uint8(2))
	f.Add(`Here is the record: {"status":"ok","points":12450} and after that`, uint8(3))
	f.Add("{\"code\"\n:\"x\"  : ok,}ok and more", uint8(2))
	f.Add(`{"code":1}}}} {"error": {"x":1}} y {"trace":2}`+"\n"+`{"stack" : "a}b"}}x`, uint8(1))
	sc, err := newScrubber([]string{"offers.search"})
	if err != nil {
		f.Fatal(err)
	}
	var out recorderSink
	g := NewGuard(&out, GuardConfig{Forbidden: []string{"offers.search"}})
	// Filler longer than the hold-back puts the stream's cut points inside the fuzzed text.
	filler := strings.Repeat("Some plain words, then more. ", 10)
	f.Fuzz(func(t *testing.T, text string, size uint8) {
		if !utf8.ValidString(text) || len(text) > 4096 {
			return
		}
		if got, want := sc.find(text), sc.re.FindAllStringIndex(text, -1); !cmp.Equal(got, want) {
			t.Fatalf("prefiltered matches %v, want %v: a pattern lacks an anchor", got, want)
		}
		text = filler + text + filler + text
		want, _ := sc.scrub(text)
		out.evs = nil
		for _, piece := range chunks(text, int(size%32)+1) {
			g.Publish(ReplyDelta{Text: piece})
		}
		g.Publish(ReplyCompleted{Text: text})
		deltas, completed := replyOf(t, out.evs)
		if deltas != want {
			t.Errorf("streamed scrub = %q, want %q", deltas, want)
		}
		if completed != want {
			t.Errorf("ReplyCompleted = %q, want %q", completed, want)
		}
	})
}

// chunks cuts s into pieces of size bytes, keeping runes whole.
func chunks(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		n := min(size, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// Prose streams through as it is written: after each delta the guard has emitted everything
// but the word being written (users still never see internals; this is the latency a chat user sees).
func TestGuardEmitsProseWithinAWord(t *testing.T) {
	reply := strings.Repeat("Here are three offers on running shoes in your size, and your order status is fine. ", 8)
	var out recorderSink
	g := NewGuard(&out, GuardConfig{Forbidden: []string{"offers.search"}})
	var sent strings.Builder
	for i, piece := range chunks(reply, 4) {
		g.Publish(ReplyDelta{Text: piece})
		sent.WriteString(piece)
		emitted, _ := replyOf(t, out.evs)
		if !strings.HasPrefix(sent.String(), emitted) {
			t.Fatalf("after delta %d the guard emitted %q, not a prefix of the reply", i, emitted)
		}
		held := sent.String()[len(emitted):]
		// Only the last word and the blanks before it may wait; "status" may hold its own short
		// window (a status code could follow it).
		if len(held) > 48 {
			t.Fatalf("after delta %d the guard holds %q back", i, held)
		}
	}
}

// Tokens split across deltas at every byte are still removed, each kind of them.
func TestGuardCatchesEachTokenSplitAnywhere(t *testing.T) {
	tokens := []string{
		"see /srv/switchboard/ccs/client.go:88 +0x1d", "HTTP 503 Service Unavailable", "it said 404 Not Found",
		"offers.search", `{"error": "boom", "code": 7}`, "status code: 502", `"status": "error"`,
		"goroutine 12 [running]:", "pkg.(*Client).Do(0xc000123456, {0x1a2b3c})", "PRINCIPAL_MISMATCH",
	}
	sc, err := newScrubber([]string{"offers.search"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range tokens {
		reply := "Sorry, " + tok + " while I looked. Here is what I found instead."
		want, n := sc.scrub(reply)
		if n == 0 {
			t.Fatalf("%q: the scrubber does not match the token", tok)
		}
		for cut := 1; cut < len(reply); cut++ {
			var out recorderSink
			g := NewGuard(&out, GuardConfig{Forbidden: []string{"offers.search"}})
			g.Publish(ReplyDelta{Text: reply[:cut]})
			g.Publish(ReplyDelta{Text: reply[cut:]})
			g.Publish(TurnCompleted{TurnID: "t"})
			if got, _ := replyOf(t, out.evs); got != want {
				t.Fatalf("%q cut at %d: deltas %q, want %q", tok, cut, got, want)
			}
		}
	}
}

// A reply that quotes a JSON-looking object keeps streaming once the object has closed: the
// guard holds the object back while it may still grow into an error payload, then lets the
// words after it through as they come rather than all at the end.
func TestGuardStreamsOnAfterAJSONRun(t *testing.T) {
	after := " and after that you can redeem them for a voucher, keep saving for a bigger reward, or ask me about the offers this week."
	for _, run := range []string{`{"status":"ok","points":12450}`, `{"error":"boom","code":7}`, `{"points": 12450}}`, "{not json at all\n"} {
		t.Run(run, func(t *testing.T) {
			reply := "Here is the record: " + run + after
			sc, err := newScrubber(nil)
			if err != nil {
				t.Fatal(err)
			}
			var out recorderSink
			g := NewGuard(&out, GuardConfig{})
			var sent strings.Builder
			for i, piece := range chunks(reply, 3) {
				g.Publish(ReplyDelta{Text: piece})
				sent.WriteString(piece)
				if !strings.Contains(sent.String(), run+" and") {
					continue // the run may still be growing: holding it is right
				}
				emitted, _ := replyOf(t, out.evs)
				scrubbed, _ := sc.scrub(sent.String())
				if !strings.HasPrefix(scrubbed, emitted) {
					t.Fatalf("after delta %d the guard emitted %q, not a prefix of %q", i, emitted, scrubbed)
				}
				if held := scrubbed[len(emitted):]; len(held) > 48 {
					t.Fatalf("after delta %d the guard holds %q back", i, held)
				}
			}
			g.Publish(ReplyCompleted{Text: reply})
			want, _ := sc.scrub(reply)
			if deltas, completed := replyOf(t, out.evs); deltas != want || completed != want {
				t.Errorf("deltas = %q, completed = %q, want %q", deltas, completed, want)
			}
		})
	}
}

// Streaming stays exact around JSON-looking runs, wherever their braces, keys and newlines
// fall: random texts built from the pieces the object rule reasons about, cut at random.
func TestGuardSplitJSONRunsExactly(t *testing.T) {
	pieces := []string{"{", "}", "}}", `"error"`, `"code"`, ":", " : ", "\n", " ", "\t", "\r", "ok", `"x"`, ",", "a b ", "12450"}
	sc, err := newScrubber(nil)
	if err != nil {
		t.Fatal(err)
	}
	// A newline may sit in the blanks after a key: the one place the pattern admits one.
	fixed := []string{"{\"code\"\n:\"x\"  : ok,}ok and more", "{\"error\" \n: 1} tail", "{\"code\"\r\n: {1}} x", "{\"x\"\n: 1} y"}
	policy := CompileGuard(GuardConfig{})
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 3000 + len(fixed) {
		var b strings.Builder
		for range rng.IntN(30) + 1 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		if i < len(fixed) {
			text = fixed[i]
		}
		want, _ := sc.scrub(text)
		var out recorderSink
		g := policy.Guard(&out)
		for _, piece := range chunks(text, rng.IntN(6)+1) {
			g.Publish(ReplyDelta{Text: piece})
		}
		g.Publish(TurnCompleted{TurnID: "t"})
		if got, _ := replyOf(t, out.evs); got != want {
			t.Fatalf("case %d: streamed scrub of %q = %q, want %q", i, text, got, want)
		}
	}
}

// foldBytes folds as fold does, on its ASCII fast path and off it.
func TestFoldBytes(t *testing.T) {
	for _, s := range []string{"", "Here is everything: ask_shop, KS ks", "a\x00z{}[]", "Kelvin \u212a, long \u017f", "ünïcode MIXED case", "ß"} {
		if got, want := string(foldBytes(nil, s)), fold(s); got != want {
			t.Errorf("foldBytes(%q) = %q, want %q", s, got, want)
		}
		if got, want := string(foldBytes(make([]byte, 0, 4), s)), fold(s); got != want {
			t.Errorf("foldBytes(%q) into a short buffer = %q, want %q", s, got, want)
		}
		if got, want := string(foldBytes(nil, []byte(s))), fold(s); got != want {
			t.Errorf("foldBytes([]byte(%q)) = %q, want %q", s, got, want)
		}
	}
}

// A payload's string is tested for anchors as bytes, without a string made of it first: the
// bytes must tell what the string tells.
func TestAnchorsInBytesAsInText(t *testing.T) {
	sc, err := newScrubber([]string{"offers.search", "Café.Menu"})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range append(scrubSamples, "", "plain words", "OFFERS.SEARCH", "café.menu") {
		if got, want := anchorsIn(sc, []byte(in)), anchorsIn(sc, in); got != want {
			t.Errorf("anchorsIn([]byte(%q)) = %b, want %b", in, got, want)
		}
		if anchorsIn(sc, in) == 0 && sc.re.MatchString(in) {
			t.Errorf("anchorsIn(%q) = 0, yet the guard matches it", in)
		}
	}
}

func TestTextJoinsWhatIsWritten(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing", nil, ""},
		{"one piece", []string{"hello"}, "hello"},
		{"empty then text", []string{"", "hello"}, "hello"},
		{"text then empty", []string{"hello", ""}, "hello"},
		{"two pieces", []string{"hel", "lo"}, "hello"},
		{"three pieces with an empty one", []string{"he", "", "l", "lo"}, "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Text
			for _, s := range tt.writes {
				p.Write(s)
			}
			if got := p.String(); got != tt.want || p.Len() != len(tt.want) {
				t.Errorf("String() = %q (Len %d), want %q (Len %d)", got, p.Len(), tt.want, len(tt.want))
			}
			p.Reset()
			p.Write("again")
			if got := p.String(); got != "again" {
				t.Errorf("after Reset, String() = %q, want %q", got, "again")
			}
		})
	}
}
