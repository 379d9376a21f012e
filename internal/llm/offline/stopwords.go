package offline

// stopwords are function words and conversational filler: they say how something is
// asked, not what is asked, so they never count as evidence for a tool.
var stopwords = setOf(
	"a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "anything",
	"anyone", "are", "around", "as", "at", "be", "been", "before", "being", "below", "between",
	"both", "but", "by", "can", "can't", "cannot", "could", "couldn't", "did", "didn't", "do",
	"does", "doesn't", "doing", "don't", "down", "during", "each", "else", "even", "ever",
	"every", "few", "for", "from", "further", "get", "gets", "getting", "give", "go", "going",
	"got", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how",
	"i", "i'd", "i'll", "i'm", "i've", "id", "if", "im", "in", "into", "is", "isn't", "it",
	"it's", "its", "just", "let", "let's", "like", "lot", "lots", "may", "me", "might", "mine",
	"more", "most", "much", "must", "my", "myself", "near", "need", "needs", "no", "nor", "not", "now",
	"of", "off", "on", "once", "one", "only", "or", "other", "our", "ours", "out", "over",
	"own", "please", "pls", "plz", "plus", "quick", "quickly", "really", "right", "same",
	"see", "she", "should", "show", "so", "some", "something", "still", "such", "sure", "tell",
	"than", "that", "that's", "the", "their", "theirs", "them", "then", "there", "there's",
	"these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "us",
	"very", "want", "wanna", "was", "we", "well", "were", "what", "what's", "whats", "when",
	"where", "which", "while", "who", "whom", "why", "will", "with", "would", "yes", "yet",
	"you", "you're", "your", "yours", "yourself",
	// conversational filler and generic request verbs
	"ok", "okay", "oh", "um", "uh", "hmm", "hey", "hi", "hello", "thanks", "thank", "thx",
	"btw", "anyway", "actually", "maybe", "kind", "sort", "find", "check", "look", "looking",
	"know", "wonder", "wondering", "curious", "tell", "help", "user", "users", "current",
	"currently", "many", "able", "happen", "thing", "things", "stuff", "bit", "come", "comes", "coming",
	"came", "take", "takes", "taking", "took",
	// chat spellings of the above
	"hows", "wheres", "whens", "whos", "whys", "ur", "rn", "ya", "gonna", "gotta", "dont", "cant",
	"didnt", "doesnt", "isnt", "wont", "im", "ive", "id",
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func isStopword(w string) bool { return stopwords[w] }
