package route

import (
	"maps"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// subordinators open a clause that frames another rather than asking anything itself:
// "before I buy, ...", "if it's late, ...". "when" is left out: it opens questions far
// more often ("when is my trip").
var subordinators = lang.List("subordinators")

// topicOpeners open a statement or a bare noun phrase rather than a question or a command.
var topicOpeners = lang.List("topicOpeners")

// backReferences in a clause point at something the clause before it named.
var backReferences = lang.List("backReferences")

// contextClause reports whether segment i only sets the scene for what follows, so that
// they are one request: a subordinate clause ("before I buy, I need to fix my address"), a
// statement that the next clause points back at ("the shoes I sent back, how's that return
// going"), or a statement of what happened or what the user is doing, when a question comes
// after it through nothing but more such statements and asides (questionAhead): "my flight
// got cancelled and the airline refunded me, do I need to put that on my tax return?" asks
// the tax agent alone, and "just got back from the museum, lovely day. anyway how many points
// do i have now?" the rewards agent. What happened or went wrong is the scene, too, of a
// request that takes up a thing of it again ("i was charged for a hotel i cancelled, i want to
// dispute the charge" disputes a charge and books no hotel). A clause ending in a question
// mark asks something itself.
func contextClause(text string, segs []segment, labels []int, i int, sceneBeforeQuestion bool) bool {
	if i+1 >= len(segs) || len(segs[i].words) == 0 || strings.Contains(text[segs[i].end:segs[i+1].start], "?") {
		return false
	}
	// A pivot on its own ("Anyway,") stands between a scene and its question.
	if sceneBeforeQuestion {
		return true
	}
	if labels[i+1] == labelEmpty {
		return false
	}
	first := segs[i].words[0].Lower
	if subordinators[first] {
		return true
	}
	// A wish is no scene: "I want to freeze my class pass for 3 weeks and I need a hotel for
	// those weeks" asks twice, and a question after a wish that points back asks about the
	// wish: "I'd like to send her sunflowers, what would that cost?".
	if labels[i+1] >= 0 && !wishes(segs[i].words) && (happened(segs[i].words) || complains(segs[i].words)) && repeats(segs[i].words, segs[i+1].words) {
		return true
	}
	return topicOpeners[first] && labels[i+1] >= 0 && !complains(segs[i].words) && !wishes(segs[i].words) &&
		slices.ContainsFunc(segs[i+1].words, func(w lang.Word) bool { return backReferences[w.Lower] })
}

// repeats reports whether the clause after, read into words next, says again a content word
// of the clause before it, ws, after "the" or a word that points back at it: "i was charged for a hotel
// i cancelled, i want to dispute the charge" disputes the charge told of, not the hotel.
func repeats(ws, next []lang.Word) bool {
	told := map[string]bool{}
	for _, w := range ws {
		for _, t := range lang.AppendTerms(nil, w.Lower) {
			if !lang.IsLightNoun(t) {
				told[t] = true
			}
		}
	}
	for j := 1; j < len(next); j++ {
		if w := next[j-1].Lower; !backReferences[w] && w != "the" {
			continue
		}
		for _, t := range lang.AppendTerms(nil, next[j].Lower) {
			if told[t] {
				return true
			}
		}
	}
	return false
}

// contextClauses returns, per segment, whether it only sets the scene (see contextClause),
// reading the message from its end so that each segment knows whether a question follows.
//
// firm reports which labelled segments name their candidate in more than passing (see
// index.inPassing): only such a question makes the statements before it its scene, since
// "what happened" after "my phone bill is way higher than usual" asks about the bill.
func contextClauses(text string, segs []segment, labels []int, firm func(int) bool) []bool {
	ctx := make([]bool, len(segs))
	// questionAhead: a question to some agent follows, through statements of what happened
	// and asides. A question no agent's words answer ("can you check it's confirmed") is
	// about the statement before it.
	questionAhead := false
	// askedAhead: the same, but any question to an agent, in passing or not. What happened
	// is the scene of any question after it: "just got back from my driving test (passed!!)
	// so I'm treating myself to a dashcam, any going cheap?". How things stand may be what
	// the question asks about.
	askedAhead := false
	// setAside: a clause ahead says that what came before is not what the user is here for
	// ("anyway, what I actually need is ..."), so news before it, even a complaint, is only
	// context, up to the request before it.
	setAside := false
	for i := len(segs) - 1; i >= 0; i-- {
		question := asks(text, segs, i) || askedAbout(text, segs, labels, i)
		wish := !question && wishes(segs[i].words)
		scene := !question && !wish && (sceneStatement(segs[i].words) || exclaimedScene(text, segs, i) || declines(segs[i].words))
		// A clause that sets the rest aside is what the user is here for: "my actual problem:
		// the print site keeps rejecting my jpg".
		aside := setsAside(segs[i].words)
		marked := labels[i] >= 0 && aside
		request := labels[i] >= 0 && !question && !wish && !scene && (marked || commands(afterPivots(segs[i].words)))
		news := setAside && labels[i] >= 0 && !question && !wish && !request
		told := scene && askedAhead && happened(segs[i].words)
		ctx[i] = labels[i] >= 0 && (news || contextClause(text, segs, labels, i, questionAhead && scene || told))
		if request || wish || question {
			setAside = false
		}
		switch {
		case request || question:
			// A request asks too: "Now: book me a private snowboard lesson".
			questionAhead, askedAhead = firm(i), labels[i] >= 0
		case wish:
			// A wish asks too ("now I need a catering quote"), but one no agent's words
			// answer leads on to what follows: "so I want to treat them - what gift cards
			// can I get".
			questionAhead, askedAhead = questionAhead || firm(i), askedAhead || labels[i] >= 0
		case labels[i] >= 0 && !scene && !news:
			questionAhead, askedAhead = false, false
		}
		setAside = setAside || questionAhead && aside
	}
	return ctx
}

// askedAbout reports whether segment i, which its words give to an agent, is what the question
// after it asks about: that question reaches no agent of its own and points back at it ("I
// missed the grocery delivery, can I rebook it"). The two ask together, so what happened
// before them only sets their scene: "my flight landed late last night and I missed the grocery
// delivery, can I rebook it" asks the grocer alone.
func askedAbout(text string, segs []segment, labels []int, i int) bool {
	return labels[i] >= 0 && i+1 < len(segs) && labels[i+1] == labelUnmatched && asks(text, segs, i+1) && pointsAt(segs[i+1].words)
}

// setsAside reports whether a clause says that what came before is not the point: "anyway",
// "I'm here about something else", "my actual problem". A change of subject that keeps the
// earlier one ("separate question: ...") is no such marker: the earlier complaint still asks.
func setsAside(ws []lang.Word) bool {
	plain := plainWordsOf(ws)
	for i, w := range plain {
		if w == "anyway" || w == "anyhow" {
			return true
		}
		if i+1 < len(plain) && asidePairs[[2]string{w, plain[i+1]}] {
			return true
		}
	}
	return false
}

var asidePairs = map[[2]string]bool{
	{"something", "else"}: true, {"actual", "problem"}: true, {"actual", "question"}: true,
	{"real", "problem"}: true, {"real", "question"}: true, {"main", "thing"}: true,
}

// complains reports whether a clause says something went wrong or the user wants something
// (see complaintWords).
func complains(ws []lang.Word) bool {
	plain := ownWords(ws)
	for i := range plain {
		if complaintAt(plain, i) {
			return true
		}
	}
	return false
}

// complaintAt reports whether plain[i] is a complaint word (see complaintWords) as used there:
// "keep" complains of something that goes on happening ("it keeps crashing", "keep getting
// charged"), not of something kept ("we keep our boat at the marina"), and "supposed" of
// what was supposed to happen.
func complaintAt(plain []string, i int) bool {
	w := plain[i]
	switch w {
	case "keep", "keeps":
		return i+1 < len(plain) && (strings.HasSuffix(plain[i+1], "ing") || plain[i+1] == "on")
	case "supposed":
		// What was supposed to happen did not ("my order was supposed to come at 9"); what
		// we're supposed to do is a plan. "were" is left out: it may be "we're".
		return i > 0 && (plain[i-1] == "was" || plain[i-1] == "wasnt")
	}
	return complaintWords[w]
}

// pointsAt reports whether a clause points back at something named before it; "this week"
// and "that afternoon" say when.
func pointsAt(ws []lang.Word) bool {
	for i, w := range ws {
		if backReferences[w.Lower] && !saysWhen(ws, i) {
			return true
		}
	}
	return false
}

// declines reports whether a clause says the user is done with the thing it names ("so no
// more marina fees for us", "no wine for me lol"): before a question to another agent it tells
// why, and asks nothing of the thing's agent.
func declines(ws []lang.Word) bool {
	plain := plainWordsOf(ws)
	no := slices.IndexFunc(plain, func(w string) bool { return declineWords[w] })
	if no < 0 {
		return false
	}
	for k := no + 2; k+1 < len(plain); k++ {
		if plain[k] == "for" && declinedFor[plain[k+1]] {
			return true
		}
	}
	return false
}

// declineWords, declinedFor: see language.txt.
var (
	declineWords = lang.List("declineWords")
	declinedFor  = lang.List("declinedFor")
)

// exclaimedScene reports whether segment i is an exclamation that says how the user feels
// ("first time skiing for all of us!"): it ends in an exclamation mark and is no complaint and
// no plain request ("refund my order now!", "deals on laptops please!").
func exclaimedScene(text string, segs []segment, i int) bool {
	ws := segs[i].words
	return strings.Contains(afterSegment(text, segs, i), "!") && !imperative(ws) && !asksPlainly(ws) && !complains(ws)
}

// asksPlainly reports whether a clause reads as a request whatever its mark: it says please,
// or a verb opens it with the user's thing or the user as its object ("refund my order",
// "send me the link").
func asksPlainly(ws []lang.Word) bool {
	plain := plainWordsOf(ws)
	if slices.Contains(plain, "please") || slices.Contains(plain, "pls") {
		return true
	}
	return len(plain) > 1 && commands(ws) && (possessives[plain[1]] || objectPronouns[plain[1]])
}

// objectPronouns stand for the user or a thing as the object of a verb.
var objectPronouns = lang.List("objectPronouns")

// afterSegment returns the text between segment i and the next one (or the end): the
// punctuation that closes the segment.
func afterSegment(text string, segs []segment, i int) string {
	end := len(text)
	if i+1 < len(segs) {
		end = segs[i+1].start
	}
	return text[segs[i].end:end]
}

// asks reports whether segment i asks something: it ends in a question mark or opens as a
// question or a request to the assistant.
func asks(text string, segs []segment, i int) bool {
	if strings.Contains(afterSegment(text, segs, i), "?") {
		return true
	}
	raw := afterPivots(segs[i].words)
	ws := plainWordsOf(raw)
	if len(ws) == 0 || subjectContractions[raw[0].Lower] {
		return false
	}
	// "is" and "are" open statements as often as questions once a clause is cut out of a
	// sentence ("... and are they in stock"), but not before "there": "is there a sale on".
	if questionOpeners[ws[0]] && (ws[0] != "is" && ws[0] != "are" || len(ws) > 1 && ws[1] == "there") {
		return true
	}
	return len(ws) > 1 && modals[ws[0]] && (secondPerson[ws[1]] || ws[1] == "i")
}

// wishes reports whether a clause says what the user wants, which asks as plainly as a
// question: "now I need a catering quote for 30", "what I need now is a sale on a frame",
// "we'd love a photo book".
func wishes(ws []lang.Word) bool {
	plain := ownWords(ws)
	for i, w := range plain {
		if !wishers[w] {
			continue
		}
		j := i + 1
		for j < len(plain) && wishAdverbs[plain[j]] {
			j++
		}
		if j == len(plain) {
			return false
		}
		switch v := plain[j]; {
		case v == "need" || v == "want" || v == "wanna":
			return true
		case (v == "like" || v == "love") && (w == "id" || w == "wed" || slices.Contains(plain[i+1:j], "would")):
			return true
		}
	}
	return false
}

// ownWords returns a clause's plain words up to what it reports someone else saying: in "my
// instructor says i need more lessons" the need is the instructor's word, told as the scene,
// not the user's wish or complaint.
func ownWords(ws []lang.Word) []string {
	plain := plainWordsOf(ws)
	for i := 1; i < len(plain); i++ {
		if reporting[plain[i]] {
			return plain[:i]
		}
	}
	return plain
}

// reporting verbs tell what someone else says or thinks. Only third-person forms: "I said I
// need a refund" is the user's own wish.
var reporting = map[string]bool{"says": true, "thinks": true, "reckons": true}

// wishers are the user as the subject of a wish.
var wishers = lang.List("wishers")

// wishAdverbs may stand between the user and the wish: "I just need", "we'd really love".
var wishAdverbs = lang.List("wishAdverbs")

// afterPivots returns a clause's words from the first that is no pivot.
func afterPivots(ws []lang.Word) []lang.Word {
	for len(ws) > 0 && pivots[strings.ReplaceAll(ws[0].Lower, "'", "")] {
		ws = ws[1:]
	}
	return ws
}

// subjectContractions open a statement, though without the apostrophe some read as a
// question's opener: "we're flying out on friday" is no "were".
var subjectContractions = lang.List("subjectContractions")

// pivots open a clause without changing what it is: "but what I actually need to know is
// ...", "anyway how many points do i have".
var pivots = lang.List("pivots")

// sceneStatement reports whether a clause that asks nothing (see asks) is a statement that
// tells what happened or what the user is doing (see narrates).
func sceneStatement(ws []lang.Word) bool {
	first := strings.ReplaceAll(ws[0].Lower, "'", "")
	opener := (questionOpeners[first] || modals[first]) && !subjectContractions[ws[0].Lower]
	return !opener && !imperative(ws) && (narrates(ws) || describes(ws))
}

// imperative reports whether a clause opens with a verb that asks for something to be done:
// "check if my package shipped" is a request, though "shipped" tells what happened.
func imperative(ws []lang.Word) bool {
	return imperativeVerb(ws) >= 0
}

// imperativeVerb returns the index in ws of the verb a request in the imperative opens with,
// after any pivot or "please" ("ok book it", "please send"), or -1.
func imperativeVerb(ws []lang.Word) int {
	i := len(ws) - len(afterPivots(ws))
	for i < len(ws) && (ws[i].Lower == "please" || ws[i].Lower == "pls") {
		i++
	}
	if i < len(ws) && requestVerbs[ws[i].Lower] {
		return i
	}
	return -1
}

// requestVerbs open a request in the imperative. Most have a past form of their own
// ("made", "sorted"), so a subjectless narration ("sorted my points out earlier") is not taken
// for a request; verbs that are also common nouns ("order", "return") are left out, since a
// clause may open with the noun ("return flight was lovely").
var requestVerbs = lang.List("requestVerbs")

// describes reports whether a statement says how things stand, with no complaint or wish in
// it: "the flights are sorted", "she's mad about snowboarding", "I have 12000 points with
// you". It needs a subject and a verb: a bare noun phrase ("my points balance") asks for what
// it names.
//
// Something going on is news, not a state: "my refund is taking ages" asks about the refund.
func describes(ws []lang.Word) bool {
	if len(ws) == 0 || !statementOpeners[ws[0].Lower] || complains(ws) {
		return false
	}
	plain := plainWordsOf(ws)
	for i := 1; i < len(plain); i++ {
		if beForms[plain[i-1]] && strings.HasSuffix(plain[i], "ing") && !subjects[plain[0]] {
			return false
		}
	}
	if subjects[plain[0]] {
		return true
	}
	return slices.ContainsFunc(plain[1:], func(w string) bool { return finiteVerbs[w] || irregularPast[w] })
}

// beForms make an -ing form after them something going on: "is taking", "are running".
var beForms = lang.List("beForms")

// subjects are pronouns that open a clause as its subject, so a verb follows.
var subjects = lang.List("subjects")

// finiteVerbs say how things stand: "the flights are sorted", "the tickets cost a fortune", "my
// instructor says I'm nearly ready".
var finiteVerbs = lang.List("finiteVerbs")

// modals open a request when the assistant or the user follows: "can you", "could i".
var modals = lang.List("modals")

// narrates reports whether a statement tells what happened or what the user is doing, without
// a complaint or a wish in it: "I moved house last month", "the airline refunded me", "we're
// flying to denver next week", "going to the gym after work", "just back from japan", but not
// "my order never arrived", "i want to return the blender" or "I'm worried about my refund".
func narrates(ws []lang.Word) bool {
	told, _ := narration(plainWordsOf(ws))
	return told
}

// narration reports of a clause's plain words whether they narrate (see narrates) and
// whether they do so in the past.
func narration(plain []string) (narrates, inThePast bool) {
	told, past, moody := false, false, false
	for i, l := range plain {
		if complaintAt(plain, i) && !moods[l] {
			return false, false
		}
		moody = moody || moods[l]
		pastHere := irregularPast[l] || pastForm(plain, i)
		past = past || pastHere
		doing := ingForm(l) && l != "looking"
		// With no subject, an -ing form opens a statement when a particle or an object
		// follows it ("going to the gym", "heading home"; see doingFollowers).
		doingAlone := i == 0 && len(plain) > 1 && doingFollowers[plain[1]]
		told = told || pastHere || doing && (doingAlone || i > 0 && i <= 3 && doingSubject(plain[:i])) ||
			l == "back" && i+1 < len(plain) && plain[i+1] == "from" || i > 0 && recollects[l]
	}
	// A bad time that is over tells what happened ("our flight landed 3 hours late"); one
	// going on ("I'm stuck at the airport") is a complaint.
	told = told && (!moody || past)
	return told, told && past
}

// ingForm reports whether a word is an -ing form of a verb: "heading", "cancelling", not
// "ring" or "something".
func ingForm(w string) bool {
	return strings.HasSuffix(w, "ing") && len(w) > 4 && !strings.HasSuffix(w, "thing")
}

// happened reports whether a statement tells what happened, in the past: "just got back
// from my driving test", not "I'm trying to save money this year".
func happened(ws []lang.Word) bool {
	_, past := narration(plainWordsOf(ws))
	return past
}

// recollects say that the user remembers what happened: "I remember getting an email about
// it".
var recollects = lang.List("recollects")

// moods say how something went, not that something is still wrong.
var moods = lang.List("moods")

// doingFollowers may follow an -ing form that opens a statement: "going to", "heading
// home", "packing the car". "for", "at" and "on" are left out: "booking for two", "parking at
// the airport" and "anything on sale" name things.
var doingFollowers = lang.List("doingFollowers")

// pastForm reports whether plain[i] is a regular past form: it ends in -ed, is not a word
// that merely ends so ("need", "speed"; words of four letters or fewer are such), and does
// not follow a linking verb, after which it describes ("I'm interested in", "we're married").
func pastForm(plain []string, i int) bool {
	l := plain[i]
	if len(l) <= 4 || !strings.HasSuffix(l, "ed") || notPast[l] {
		return false
	}
	return i == 0 || !linking[plain[i-1]]
}

// linking verbs make the -ed word after them describe the subject rather than tell what
// happened. "was" and "were" are left out: "my flight was delayed" tells what happened.
var linking = lang.List("linking")

// doingSubject reports whether plain, the words before an -ing form, make the user its
// subject: "I'm", "we're", "I've been", "we are".
func doingSubject(plain []string) bool {
	switch plain[0] {
	case "im", "were", "ive", "weve":
		return true
	case "i", "we":
		return len(plain) > 1 && (plain[1] == "am" || plain[1] == "are")
	}
	return false
}

// complaintWords turn a statement of what happened into a request of its own: something went
// wrong, or the user wants something.
var complaintWords = lang.List("complaintWords")

// irregularPast are common past forms that do not end in -ed.
var irregularPast = lang.List("irregularPast")

// notPast end in -ed, are longer than four letters, and are not past forms.
var notPast = lang.List("notPast")

// afterthought reports whether segment i (i > 0), after a question or a request, only explains
// it: a statement with no complaint in it that points back at it ("how much is the calculator,
// his tutor says he needs one") or tells what the user did or is doing ("pause my lens
// subscription, i'm off travelling around asia for two months") or says how the user's own
// things stand ("which lifts are open? our train is at 5"). What happened to something else is
// news of its own: "show me tv deals, my flight left without me".
func afterthought(text string, segs []segment, i int) bool {
	ws := segs[i].words
	if len(ws) == 0 || asks(text, segs, i) || !asks(text, segs, i-1) && !commands(segs[i-1].words) {
		return false
	}
	// A statement has a subject: "reset my password while you're at it" is a request. One
	// that opens with a past form has left its subject out: "ordered them 10 days ago".
	subjectless := opensInThePast(ws)
	if !statementOpeners[ws[0].Lower] && !subjectless {
		return false
	}
	// A wish for the thing just asked about explains the question: "where is my package? I
	// need it before my flight on friday". A short noun phrase names it: "where's my order
	// from last week, the headphones".
	if firstPerson[ws[0].Lower] && wishes(ws) && pointsAt(ws) || appositive(ws) {
		return true
	}
	return !complains(ws) && (pointsAt(ws) || standsNow(ws) || (firstPerson[ws[0].Lower] || subjectless) && narrates(ws))
}

// standsNow reports whether a statement says how one of the user's things stands now: "our
// train is at 5", "my neck is sore". What happened to it ("my flight left without me") is news.
func standsNow(ws []lang.Word) bool {
	plain := plainWordsOf(ws)
	return len(plain) > 2 && possessives[plain[0]] && describes(ws) && slices.ContainsFunc(plain[1:], func(w string) bool { return w == "is" || w == "are" })
}

// opensInThePast reports whether a clause opens with a past form, its subject left out. A past
// participle before a noun describes it: "discounted headphones in the sale" asks for them.
func opensInThePast(ws []lang.Word) bool {
	if len(ws) > 1 && namesAThing(ws[1].Lower, lang.AppendTerms(nil, ws[1].Lower)) {
		return false
	}
	first := strings.ReplaceAll(ws[0].Lower, "'", "")
	return irregularPast[first] || pastForm([]string{first}, 0)
}

// appositive reports whether a clause is a short noun phrase with a definite article: "the
// headphones", "the blue one".
func appositive(ws []lang.Word) bool {
	plain := plainWordsOf(ws)
	return len(plain) > 0 && len(plain) <= 3 && plain[0] == "the" && !slices.ContainsFunc(plain[1:], func(w string) bool {
		return finiteVerbs[w] || irregularPast[w] || lang.IsStopword(w)
	})
}

// commands reports whether a clause opens as a request to do something: with a verb, not a
// subject ("show me tv deals", "pause my subscription").
func commands(ws []lang.Word) bool {
	return len(ws) > 0 && !statementOpeners[ws[0].Lower] && !questionOpeners[strings.ReplaceAll(ws[0].Lower, "'", "")]
}

// firstPerson are the user as a subject.
var firstPerson = lang.List("firstPerson")

// statementOpeners open a statement: a subject or its determiner.
var statementOpeners = func() map[string]bool {
	out := maps.Clone(lang.List("statementOpeners"))
	maps.Copy(out, topicOpeners)
	return out
}()
