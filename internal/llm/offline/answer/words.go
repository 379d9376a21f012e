package answer

import (
	"maps"
	"slices"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// The word lists and numbers the model reads, all in one place. They are generic English,
// never any schema, and language.txt says why each holds what it does and where each number
// was chosen; some of the lists are routing's too.
var (
	// How a request asks: words that say how, not about what.
	fillers         = lang.List("fillers")         // dropped from the front of a clause
	frameWords      = lang.List("frameWords")      // frame a question without naming its subject
	deadlineAsks    = lang.List("deadlineAsks")    // ask how long one has: a deadline
	deadlineWords   = lang.List("deadlineWords")   // end a date's key that says by when to act
	reasonAsks      = lang.List("reasonAsks")      // ask why: a record's details answer
	whenAsks        = lang.List("whenAsks")        // ask when, as "when" does: "what time"
	noise           = lang.List("noise")           // greetings, hedges and praise: "yo, ... or whatever"
	shorthand       = lang.List("shorthand")       // chat spellings of small words: "r", "rn"
	chatParticles   = lang.List("chatParticles")   // chat spellings of a phrasal verb's particle: "thru"
	actionVerbs     = lang.List("actionVerbs")     // ask for something to be done rather than looked up
	verbLeads       = lang.List("verbLeads")       // come right before a verb: "do they run", "can we get"
	userLeads       = lang.List("userLeads")       // come before what the user does or is: "can I cancel it"
	subjectPronouns = lang.List("subjectPronouns") // the word after one is what someone does
	possessives     = lang.List("possessives")     // with people, who a request is for: "for my daughter"
	people          = lang.List("people")          // but not "a case for my iphone"
	askWords        = lang.List("askWords")        // open a question of its own
	whWords         = lang.List("whWords")         // the next word names the thing asked for: "what food"
	auxiliaries     = lang.List("auxiliaries")     // follow the thing a wh-question names: "what food does"
	doLeads         = lang.List("doLeads")         // open a question whether someone does something
	possessionVerbs = lang.List("possessionVerbs") // say someone has something
	copulas         = lang.List("copulas")         // come before the subject of a question
	negators        = lang.List("negators")        // turn the thing named into the thing not wanted
	backPointers    = lang.List("backPointers")    // point at what an earlier message named
	idAsks          = lang.List("idAsks")          // ask for a record's identifier: "my order number"

	// The shape of a phrase: where a thing's name starts and ends.
	scopePreps        = lang.List("scopePreps")        // open the part that narrows a request: "deals ON laptops"
	placePrepositions = lang.List("placePrepositions") // come before a place: "hotels in paris"
	forPlaces         = lang.List("forPlaces")         // come before a place no other word leads in: "and for chicago?"
	sellerLeads       = lang.List("sellerLeads")       // come before a seller: "the bose speakers at best buy"
	phraseEnds        = lang.List("phraseEnds")        // end the name of a thing
	verbParticles     = lang.List("verbParticles")     // complete a verb rather than name a thing: "back"
	joinedParticles   = lang.List("joinedParticles")   // end a verb written with its particle: "holdup"
	generalStates     = lang.List("generalStates")     // after "in", that a record is under way at all: "in stock"
	measureWords      = lang.List("measureWords")      // count or describe a product: "a pair of", "a new"
	particles         = lang.List("particles")         // end a describing label: "expiring soon"

	// Time.
	timeNouns       = lang.List("timeNouns")       // a stretch of time: after "this" or "next" they say when
	timeDeterminers = lang.List("timeDeterminers") // make the time noun after them say when: "this week"
	rateLeads       = lang.List("rateLeads")       // make the time noun after them a price's unit: "a night"
	calendarWords   = lang.List("calendarWords")   // months and weekdays, and relative days
	aheadWords      = lang.List("aheadWords")      // ask about what is still to come
	latestWords     = lang.List("latestWords")     // ask for the latest record
	nextWords       = lang.List("nextWords")       // ask for the first record still to come

	// Which of the records found is wanted.
	mostWords     = lang.List("mostWords")     // ask for the largest
	leastWords    = lang.List("leastWords")    // ask for the smallest
	rankWords     = lang.List("rankWords")     // like mostWords and leastWords, say which is wanted
	finishedWords = lang.List("finishedWords") // statuses that say a record is over
	haltedWords   = lang.List("haltedWords")   // statuses that say a record is not in force for now
	lapsedWords   = lang.List("lapsedWords")   // statuses that say a record no longer holds
	categoryKeys  = lang.List("categoryKeys")  // name the field that says what kind a record is
	stateKeys     = lang.List("stateKeys")     // name the field that says how a record stands
	placeLabels   = lang.List("placeLabels")   // name a place that holds a numbered one: "level P2"

	// Money.
	priceWords    = lang.List("priceWords")    // ask what something costs
	priceCopulas  = lang.List("priceCopulas")  // after "how much", ask a price: "how much is"
	oweWords      = lang.List("oweWords")      // ask what is still to pay
	owePhrases    = lang.List("owePhrases")    // ask it in several words: "left to pay"
	clauseJoins   = lang.List("clauseJoins")   // join two things asked in one question
	totalWords    = lang.List("totalWords")    // ask for a sum
	budgetWords   = lang.List("budgetWords")   // with currencyNames, say a number is money
	currencyNames = lang.List("currencyNames") // "dollars", "euros"
	moneyWords    = lang.List("moneyWords")    // name amounts when a currency sits beside them
	pricedWords   = lang.List("pricedWords")   // name amounts even with no currency in sight
	priceLabels   = lang.List("priceLabels")   // money that goes without saying: "$104.00", not "price $104.00"
	amountLabels  = lang.List("amountLabels")  // the amount of a money object, which is the object's key's money
	owedLabels    = lang.List("owedLabels")    // name what is owed

	// How a member of the data reads (keys are humanised): "$104.00", "20% off", "until Nov 27",
	// "at Nike". They decide how a value reads, never whether it exists.
	percentWords          = lang.List("percentWords")          // a percentage
	discountWord          = lang.List("discountWord")          // a discount: "20% off"
	sourceWords           = lang.List("sourceWords")           // a seller: "at Nike"
	bareWords             = lang.List("bareWords")             // a value that needs no label: a name, a status
	endWords              = lang.List("endWords")              // a date that ends something: "until Nov 27"
	startWords            = lang.List("startWords")            // a date that starts something: "from Mar 3"
	dayWords              = lang.List("dayWords")              // the day something happens: "on Mar 3"
	bookkeepingWords      = lang.List("bookkeepingWords")      // lead flags that describe the lookup, not the data
	countWords            = lang.List("countWords")            // the size of a list
	unitWords             = lang.List("unitWords")             // end a label whose number counts them
	remainderWords        = lang.List("remainderWords")        // end a label that counts what is left
	identifierWords       = lang.List("identifierWords")       // numbers that are codes or years, not quantities
	zeroDecimalCurrencies = lang.List("zeroDecimalCurrencies") // no minor unit in everyday use
	nameLabels            = lang.List("nameLabels")            // name the thing an object is about
	snapshotLabels        = lang.List("snapshotLabels")        // name the date data was taken
	flagPrepositions      = lang.List("flagPrepositions")      // with flagAdjectives and adjectiveEndings,
	flagAdjectives        = lang.List("flagAdjectives")        // a flag naming a quality: "not overdue", not "no overdue"
	adjectiveEndings      = slices.Sorted(maps.Keys(lang.List("adjectiveEndings")))

	// Tools and failures.
	toolVerbs      = lang.List("toolVerbs")      // lead tool names without saying what the data is
	searchVerbs    = lang.List("searchVerbs")    // look beyond the user's own data: "search_offers"
	failurePhrases = lang.List("failurePhrases") // say that data is missing
	codeWords      = lang.List("codeWords")      // make a failure note read as code
	transitionSafe = lang.List("transitionSafe") // openers, no stopwords, that read fine lower-cased

	// Numbers.
	maxOwnedWords       = int(lang.Number("maxOwnedWords"))
	maxOptionWords      = int(lang.Number("maxOptionWords"))
	maxNesting          = int(lang.Number("maxNesting")) // how deep objects in objects read as facts
	maxFacts            = int(lang.Number("maxFacts"))
	itemExtras          = int(lang.Number("itemExtras"))
	maxTitleWords       = int(lang.Number("maxTitleWords"))
	maxQuotedWords      = int(lang.Number("maxQuotedWords"))
	minTypoLetters      = int(lang.Number("minTypoLetters"))
	minValueTypoLetters = int(lang.Number("minValueTypoLetters"))
	fitBonus            = lang.Number("fitBonus")
	recordCloseness     = lang.Number("recordCloseness")
	recordLead          = lang.Number("recordLead")
	claimCloseness      = lang.Number("claimCloseness")
	tradeCloseness      = lang.Number("tradeCloseness")
)

// Statuses of the tool wrapper a sub-agent gives its LLM, and of failure notes.
const (
	resultOK          = "ok"
	resultPartial     = "partial"
	resultUnavailable = "unavailable"
	resultError       = "error"
)
