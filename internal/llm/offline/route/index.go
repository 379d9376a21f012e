package route

import (
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// bm25K1, bm25B, backgroundDocs, fuzzyWeight, bigramWeight, exampleB: see language.txt, which says where each was chosen.
var (
	bm25K1         = lang.Number("bm25K1")
	bm25B          = lang.Number("bm25B")
	backgroundDocs = lang.Number("backgroundDocs")
	fuzzyWeight    = lang.Number("fuzzyWeight")
	bigramWeight   = lang.Number("bigramWeight")
	exampleB       = lang.Number("exampleB")
)

// Source is the text that describes one candidate (a tool): its name, its
// description and any example requests, in that order (the first text is the name), plus
// side text that counts for less.
type Source struct {
	Texts []string
	Minor []string // e.g. parameter names and descriptions: weak evidence
	// Tools are what the agent's own tools say they do: stronger evidence than minor text, but
	// written about data, not as users ask.
	Tools []string
}

var minorWeight = lang.Number("minorWeight") // see language.txt

// document is what the index counts of one source's texts.
type document struct {
	tf     map[string]float64
	length float64
	// exampleTF is the part of tf that the document's examples make, and exampleLength their
	// words (see Index.score).
	exampleTF     map[string]float64
	exampleLength float64
	bigrams       map[[2]string]bool
	// bound holds the words the document uses only as the second word of one compound, each
	// with the word before it: "card" in "gift card" (see otherCompound).
	bound map[string]string
}

// Index scores short queries against a handful of documents with BM25, a bigram bonus
// and typo-tolerant term lookup, and keeps each document's texts as meaning vectors for
// messages that share no word with any of them. It is immutable once built, and shared.
type Index struct {
	docs   []document
	df     map[string]int
	vocab  []string // sorted, for a deterministic typo search
	avgLen float64
	// avgExamples is the average words of a document's examples.
	avgExamples float64
	// meanings holds, per document, the meaning vector of each of its texts.
	meanings [][][]float32
	// texts holds, per document, its texts as written; readings holds them with the phrases
	// of its description and what its tools do (see sentenceTexts), for the sentence encoder,
	// which encodes them on first need into sents (see sentences).
	texts    [][]string
	readings [][]string
	// exampleWords holds, per document, the words of each of its examples (see wordsOf), for
	// examplesDissent.
	exampleWords [][][]string
	hasExamples  bool
	names        map[string]bool // the terms of any document's name, its first text (see docSource)
	heads        []string        // per document, the last term of its name, "" for none (see namesTool)
	brands       map[string]int  // the terms of a business's own name, each with its document (see brandTerms)
	sentOnce     sync.Once
	sents        [][][]float32
	wholeN       []int // per document, how many of sents are of whole texts (the rest are phrases and tool texts)
	modOnce      sync.Once
	mods         []map[string]bool
	ownOnce      sync.Once
	described    []string          // per document, its name and description (see ownTerms)
	own          []map[string]bool // per document, their terms
}

// modifiers returns, per document, the stems its first two texts (a tool's name and
// description) use only as an -ing form describing the next word (see modifierStems). They
// depend on the definitions alone, so each index works them out once, not every turn.
func (ix *Index) modifiers() []map[string]bool {
	ix.modOnce.Do(func() {
		ix.mods = make([]map[string]bool, len(ix.texts))
		for i, texts := range ix.texts {
			ix.mods[i] = modifierStems(strings.Join(texts[:min(2, len(texts))], ". "))
		}
	})
	return ix.mods
}

// NewIndex builds the index of sources, one document per source in the same order, so that
// a document's number is its source's. Sentence vectors are left for the first turn that
// needs them, or PrepareAgents.
func NewIndex(sources []Source) *Index {
	ix := &Index{df: map[string]int{}, names: map[string]bool{}}
	total, examples := 0.0, 0.0
	for _, src := range sources {
		d := document{tf: map[string]float64{}, exampleTF: map[string]float64{}, bigrams: map[[2]string]bool{}}
		var ms [][]float32
		before, uses := map[string]string{}, map[string]int{}
		for _, text := range slices.Concat(src.Texts[min(1, len(src.Texts)):], src.Tools) {
			compounds(text, func(t, prev string) {
				if b, ok := before[t]; ok && b != prev {
					prev = ""
				}
				before[t] = prev
				uses[t]++
			})
		}
		d.bound = map[string]string{}
		for t, b := range before {
			if b != "" && uses[t] >= minBoundUses {
				d.bound[t] = b
			}
		}
		head := ""
		for i, text := range src.Texts {
			ts := lang.Terms(text)
			if i == 0 {
				for _, t := range ts {
					ix.names[t] = true
				}
				if len(ts) > 0 {
					head = ts[len(ts)-1]
				}
			}
			if m := lang.Meaning(ts); m != nil {
				ms = append(ms, m)
			}
			for j, t := range ts {
				d.tf[t]++
				if i >= 2 {
					d.exampleTF[t]++
				}
				if j > 0 {
					d.bigrams[[2]string{ts[j-1], t}] = true
				}
			}
			d.length += float64(len(ts))
			if i >= 2 {
				d.exampleLength += float64(len(ts))
			}
			ws := lang.ScanWords(text)
			for _, t := range lang.ShapeTerms(ws) {
				d.tf[t]++
			}
			// "check-in" is the "check in" a request asks about, joined as queryTerms joins it.
			for _, w := range ws {
				if c := hyphenJoined(w.Lower); c != "" {
					d.tf[c]++
				}
			}
		}
		for _, side := range []struct {
			texts  []string
			weight float64
		}{{src.Minor, minorWeight}, {src.Tools, toolTextWeight}} {
			for _, text := range side.texts {
				ts := lang.Terms(text)
				for _, t := range ts {
					d.tf[t] += side.weight
				}
				d.length += side.weight * float64(len(ts))
			}
		}
		for t := range d.tf {
			ix.df[t]++
		}
		total += d.length
		examples += d.exampleLength
		ix.docs = append(ix.docs, d)
		ix.meanings = append(ix.meanings, ms)
		ix.texts = append(ix.texts, src.Texts)
		ix.heads = append(ix.heads, head)
		var exs [][]string
		for _, text := range src.Texts[min(2, len(src.Texts)):] {
			exs = append(exs, wordsOf(text))
		}
		ix.exampleWords = append(ix.exampleWords, exs)
		ix.hasExamples = ix.hasExamples || len(exs) > 0
		ix.readings = append(ix.readings, sentenceTexts(src))
	}
	if len(ix.docs) > 0 {
		ix.avgLen = math.Max(1, total/float64(len(ix.docs)))
		ix.avgExamples = math.Max(1, examples/float64(len(ix.docs)))
	}
	for t := range ix.df {
		ix.vocab = append(ix.vocab, t)
	}
	ix.brands = map[string]int{}
	for d, src := range sources {
		if len(src.Texts) < 2 {
			continue
		}
		for _, t := range brandTerms(src.Texts[1]) {
			if ix.df[t] == 1 {
				ix.brands[t] = d
			}
		}
	}
	slices.Sort(ix.vocab)
	return ix
}

// idf is term t's BM25 inverse document frequency, as if backgroundDocs more documents lacked it.
func (ix *Index) idf(t string) float64 {
	n := float64(ix.df[t])
	return math.Log(1 + (float64(len(ix.docs))+backgroundDocs-n+0.5)/(n+0.5))
}

// resolved is a query term mapped onto the index vocabulary.
type resolved struct {
	term   string
	weight float64 // 1 for an exact match, less after a typo correction
}

// resolve maps query terms onto the vocabulary: exact stems first, then another form of the
// word, then a word of its group of synonyms (see synonymOf), then the closest vocabulary term
// within the word's typo budget. Words merely near in meaning are no synonyms: closeness in
// meaning is left to the whole message (see meaning.go), where one word cannot carry a message
// off topic. Terms with no match keep an empty term, so positions (for bigrams) are preserved.
func (ix *Index) resolve(query []string) []resolved {
	out := make([]resolved, len(query))
	for i, q := range query {
		if ix.df[q] > 0 {
			out[i] = resolved{term: q, weight: 1}
			continue
		}
		if v := ix.derived(q); v != "" {
			out[i] = resolved{term: v, weight: derivedWeight}
			continue
		}
		if v := ix.synonymOf(q); v != "" {
			out[i] = resolved{term: v, weight: derivedWeight}
			continue
		}
		budget := lang.TypoBudget(len(q))
		if budget == 0 || lang.IsDigits(q) || strings.HasPrefix(q, lang.ShapePrefix) || lang.Dictionary().Known(q) {
			continue // a word of the language is meant as written, not a typo of another
		}
		best, bestDist := "", budget+1
		for _, v := range ix.vocab {
			if len(v) < 4 {
				continue
			}
			if d := lang.EditDistance(q, v, budget); d < bestDist {
				best, bestDist = v, d
			}
		}
		if best != "" {
			out[i] = resolved{term: best, weight: fuzzyWeight / float64(bestDist)}
		}
	}
	return out
}

// derived returns the vocabulary term that is q with a derivational ending (derivedEndings)
// added or taken away, such as "electricity" for "electric" or "practical" for "practice", or
// "" when there is none: the stemmer removes only inflections, and a description names a
// subject in one form ("electricity and water bills") where users say another ("the electric
// bill"). The shorter form keeps minDerivedStem letters: "car" is no "card".
func (ix *Index) derived(q string) string {
	if len(q) < minDerivedStem || lang.IsDigits(q) || strings.HasPrefix(q, lang.ShapePrefix) {
		return ""
	}
	if i := slices.IndexFunc(ix.vocab, func(v string) bool { return lang.IsOtherForm(v, q) }); i >= 0 {
		return ix.vocab[i]
	}
	return ""
}

// synonymGroups are language.txt's synonyms, read as stems: each stem with the others of its
// group, in the file's order.
var synonymGroups = func() map[string][]string {
	out := map[string][]string{}
	for _, group := range lang.Frames("synonyms") {
		stems := make([]string, len(group))
		for i, w := range group {
			stems[i] = lang.Stem(w)
		}
		for _, s := range stems {
			out[s] = slices.DeleteFunc(slices.Clone(stems), func(o string) bool { return o == s })
		}
	}
	return out
}()

// synonymOf returns the first vocabulary term of q's group of synonyms, "" when there is none:
// a user swaps what a description calls an exchange, and words that mean the same thing in
// every trade are English, not an agent's.
func (ix *Index) synonymOf(q string) string {
	for _, o := range synonymGroups[q] {
		if ix.df[o] > 0 {
			return o
		}
	}
	return ""
}

// minDerivedStem, derivedWeight: see language.txt, which says where each was chosen.
var (
	minDerivedStem = int(lang.Number("minDerivedStem"))
	derivedWeight  = lang.Number("derivedWeight")
)

// evidence counts the query's distinct words that doc matches, the query's distinct words of
// full weight (not light nouns or scope words), and the most times doc's texts use one of the
// matched words: how much of what was said is about doc, and how characteristic of it.
func (ix *Index) evidence(query []qterm, doc int) (matched, words int, maxTF float64) {
	seen := map[string]bool{}
	for i, r := range ix.resolve(stemsOf(query)) {
		if seen[query[i].stem] || lang.IsNumberTerm(query[i].stem) {
			continue // a number is no evidence for an agent ("it's been like 25 days")
		}
		seen[query[i].stem] = true
		if query[i].weight >= 1 {
			words++
		}
		if r.term != "" && doc < len(ix.docs) && ix.docs[doc].tf[r.term] > 0 {
			matched++
			maxTF = max(maxTF, ix.docs[doc].tf[r.term])
		}
	}
	return matched, words, maxTF
}

// inPassing reports whether the query reaches doc through a single word that doc's texts use
// only once: a word it happens to use, not a word of its trade.
func (ix *Index) inPassing(query []qterm, doc int) bool {
	matched, _, tf := ix.evidence(query, doc)
	return matched < 2 && tf < 2
}

// onlyThrough reports whether every query term that matches doc is one of stems: whether
// the query reaches doc only through those words.
func (ix *Index) onlyThrough(query []qterm, doc int, stems map[string]bool) bool {
	through := false
	for i, r := range ix.resolve(stemsOf(query)) {
		if r.term == "" || ix.docs[doc].tf[r.term] == 0 {
			continue
		}
		if !stems[query[i].stem] && !stems[r.term] {
			return false
		}
		through = true
	}
	return through
}

// namesOwnThing reports whether a clause matches document doc in a word after "my" or "our":
// "where's my parcel" asks about the user's parcel, however rarely the document says
// "parcel", while "what happened" matches through a word of no one's in particular.
func (ix *Index) namesOwnThing(ws []lang.Word, doc int) bool {
	return slices.ContainsFunc(ix.ownedWords(ws), func(w string) bool { return ix.uses(doc, w) })
}

// namesOwnThingBesidesMoney is namesOwnThing for a thing of the user's other than money
// (moneyNouns, and the particle of "my money back"): "did i get my money back" after a
// cancelled class names the class's money, whichever agent's texts speak of refunds.
func (ix *Index) namesOwnThingBesidesMoney(ws []lang.Word, doc int) bool {
	owned := ix.ownedWords(ws)
	return slices.ContainsFunc(owned, func(w string) bool { return !moneyNouns[w] && !verbParticles[w] && ix.uses(doc, w) })
}

// ownedWords returns the words of the noun phrases after "my" or "our" (see namesOwnThing):
// the thing is the noun phrase, "my nike order" names an order.
func (ix *Index) ownedWords(ws []lang.Word) []string {
	var out []string
	for k := 1; k < len(ws); k++ {
		if w := ws[k-1].Lower; w != "my" && w != "our" {
			continue
		}
		for j := k; j < len(ws) && j < k+maxOwnedWords && !lang.IsStopword(ws[j].Lower); j++ {
			out = append(out, ws[j].Lower)
		}
	}
	return out
}

// moneyNouns: see language.txt.
var moneyNouns = lang.List("moneyNouns")

// soleOwner returns the document whose texts alone use the words of the noun phrases after
// "my" or "our" (see namesOwnThing), or -1 when none does or several do: "my fitting" is a
// hearing clinic's, "our boarding passes" is an airline's or a ski lift's. Light nouns and
// numbers say nothing of whose thing it is, and a word a document uses only in a compound of
// its own leaves it open ("my card" may be no "gift card").
func (ix *Index) soleOwner(ws []lang.Word) int {
	owner := -1
	for _, w := range ix.ownedWords(ws) {
		ts := lang.Terms(w)
		if len(ts) == 0 || slices.ContainsFunc(ts, func(t string) bool { return lang.IsLightNoun(t) || lang.IsNumberTerm(t) }) {
			continue
		}
		for c := range ix.docs {
			if !ix.uses(c, w) {
				continue
			}
			if owner >= 0 && owner != c || slices.ContainsFunc(ts, func(t string) bool { return ix.docs[c].bound[t] != "" }) {
				return -1
			}
			owner = c
		}
	}
	return owner
}

// ownThingOf reports whether the user's own thing ("my credit card") is document doc's rather
// than other's: doc's texts use a word of it, or two of its words together, that other's do
// not, and not the other way round. Words two agents share ("points", "card") leave a choice
// between them open; the thing the user names ("credit card", where the other agent's cards
// are gift cards) does not. A person of the user's ("my son") is whom the question is about,
// no thing: "what share does my son get" after a pension's beneficiaries is no school's. Nor is
// money the user paid (moneyNouns): "did i get my money back" after a cancelled class is the
// class's money, whichever agent's texts speak of it.
func (ix *Index) ownThingOf(ws []lang.Word, doc, other int) bool {
	own := slices.DeleteFunc(ix.ownedWords(ws), func(w string) bool { return people[w] || moneyNouns[w] || verbParticles[w] })
	var stems []string
	for _, w := range own {
		stems = lang.AppendTerms(stems, w)
	}
	names := func(a, b int) bool {
		if slices.ContainsFunc(own, func(w string) bool { return ix.uses(a, w) && !ix.uses(b, w) }) {
			return true
		}
		for j := 1; j < len(stems); j++ {
			pair := [2]string{stems[j-1], stems[j]}
			if ix.docs[a].bigrams[pair] && !ix.docs[b].bigrams[pair] {
				return true
			}
		}
		return false
	}
	return names(doc, other) && !names(other, doc)
}

// uses reports whether document doc's texts use word (lower-cased), in any form the index
// matches.
func (ix *Index) uses(doc int, word string) bool {
	return slices.ContainsFunc(ix.resolve(lang.AppendTerms(nil, word)), func(r resolved) bool { return r.term != "" && ix.docs[doc].tf[r.term] > 0 })
}

var maxOwnedWords = int(lang.Number("maxOwnedWords")) // see language.txt

// singlesOut reports whether some query term matches document doc but not document other.
func (ix *Index) singlesOut(query []qterm, doc, other int) bool {
	return slices.ContainsFunc(ix.resolve(stemsOf(query)), func(r resolved) bool {
		return r.term != "" && ix.docs[doc].tf[r.term] > 0 && (other < 0 || ix.docs[other].tf[r.term] == 0)
	})
}

// tradeWord reports whether some document uses stem more than once: a word of its trade
// ("refund" for support) rather than one it happens to use.
func (ix *Index) tradeWord(stem string) bool {
	return slices.ContainsFunc(ix.docs, func(d document) bool { return d.tf[stem] >= 2 })
}

// score returns one BM25 score per document for the weighted query terms. A term repeated
// in the query counts once, at its highest weight: saying "points" twice is not twice the
// evidence.
//
// What a document's examples add to its counts is scaled down when they are longer than the
// average document's (see exampleB): an agent with many examples uses the words it shares with
// others many times for that alone, and an agent described only by its description and tools
// lost every shared word to it. No document is scaled up.
func (ix *Index) score(query []qterm) []float64 {
	scores := make([]float64, len(ix.docs))
	rs := ix.resolve(stemsOf(query))
	weight := map[string]float64{}
	var order []string
	for i, r := range rs {
		if r.term == "" {
			continue
		}
		w := r.weight * query[i].weight
		if _, ok := weight[r.term]; !ok {
			order = append(order, r.term)
		}
		weight[r.term] = max(weight[r.term], w)
	}
	for _, t := range order {
		idf := ix.idf(t)
		for i, d := range ix.docs {
			tf := d.tf[t]
			if tf == 0 {
				continue
			}
			tf -= d.exampleTF[t] * (1 - 1/max(1, 1-exampleB+exampleB*d.exampleLength/ix.avgExamples))
			norm := 1 - bm25B + bm25B*d.length/ix.avgLen
			scores[i] += weight[t] * idf * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
		}
	}
	for j := 1; j < len(rs); j++ {
		a, b := rs[j-1].term, rs[j].term
		if a == "" || b == "" || a == b {
			continue
		}
		w := min(query[j-1].weight, query[j].weight)
		bonus := w * bigramWeight * (ix.idf(a) + ix.idf(b)) / 2
		for i, d := range ix.docs {
			if d.bigrams[[2]string{a, b}] {
				scores[i] += bonus
			}
		}
	}
	return scores
}

// toolTextWeight is how much a word of what an agent's tools say they do counts (see
// docSource.tools).
var toolTextWeight = lang.Number("toolTextWeight")

// otherCompound returns the stems of text that count for less for document doc because they
// name another document's thing than the one compound doc's texts use them in. Such a word
// stands after another word than doc's, making a compound another document names ("credit
// card" is the card benefits agent's, not the "gift card" that is the only card a rewards
// agent speaks of), or alone where another document uses it alone ("card points", beside an
// agent whose cards are cards of any kind). After doc's own word, or one no document pairs
// with it ("a cheaper plan"), it keeps its weight.
func (ix *Index) otherCompound(text string, doc int) map[string]bool {
	d := &ix.docs[doc]
	if len(d.bound) == 0 {
		return nil
	}
	var out map[string]bool
	compounds(text, func(t, prev string) {
		b, ok := d.bound[t]
		if !ok || prev == b || prev != "" && d.bigrams[[2]string{prev, b}] {
			return
		}
		for e := range ix.docs {
			if e == doc {
				continue
			}
			_, bound := ix.docs[e].bound[t]
			if prev != "" && ix.docs[e].bigrams[[2]string{prev, t}] || prev == "" && !bound && ix.docs[e].tf[t] >= 2 {
				if out == nil {
					out = map[string]bool{}
				}
				out[t] = true
				return
			}
		}
	})
	return out
}

// minBoundUses, boundWeight: see language.txt.
var (
	minBoundUses = int(lang.Number("minBoundUses"))
	boundWeight  = lang.Number("boundWeight")
)

// compounds calls f with each content word's stem of text and the stem of the content word
// right before it in the same phrase ("gift" for "card" in "gift cards"), or "" when a
// function word or punctuation comes between.
func compounds(text string, f func(t, prev string)) {
	ws := lang.ScanWords(text)
	for i, w := range ws {
		if lang.IsStopword(w.Lower) || strings.Contains(w.Lower, "-") {
			continue
		}
		prev := ""
		if i > 0 && !lang.IsStopword(ws[i-1].Lower) && !strings.Contains(ws[i-1].Lower, "-") && strings.TrimSpace(text[ws[i-1].End:w.Start]) == "" {
			if ts := lang.Terms(ws[i-1].Lower); len(ts) == 1 {
				prev = ts[0]
			}
		}
		for _, t := range lang.Terms(w.Lower) {
			f(t, prev)
		}
	}
}

// brandTerms returns the terms of the proper names a description gives its business ("Clearpath
// Labs patient portal", "Hive Coworking member desk"): capitalised words that are no English
// word, or that stand beside another capitalised word. A user who names the business ("how much
// do i owe clearpath") asks that agent, whatever the rest of the question shares with others.
func brandTerms(description string) []string {
	ws := lang.ScanWords(description)
	capital := func(i int) bool {
		return i >= 0 && i < len(ws) && unicode.IsUpper([]rune(ws[i].Text)[0]) && !lang.IsStopword(ws[i].Lower)
	}
	var out []string
	for i, w := range ws {
		if !capital(i) {
			continue
		}
		if capital(i-1) || capital(i+1) || !lang.Dictionary().Known(lang.Stem(w.Lower)) {
			out = lang.AppendTerms(out, w.Lower)
		}
	}
	return out
}

// brandOf returns the document whose business the query names (see brandTerms), or -1 when it
// names none or several.
func (ix *Index) brandOf(query []qterm) int {
	doc := -1
	for _, q := range query {
		d, ok := ix.brands[q.stem]
		if !ok {
			continue
		}
		if doc >= 0 && doc != d {
			return -1
		}
		doc = d
	}
	return doc
}

// hyphenJoined returns the stem of a hyphenated word written as one ("check-in", "checkin");
// "" for other words.
func hyphenJoined(w string) string {
	if !strings.Contains(w, "-") {
		return ""
	}
	joined := strings.ReplaceAll(w, "-", "")
	if len(joined) < minCompoundLetters || !isLetters(joined) {
		return ""
	}
	return lang.Stem(joined)
}
