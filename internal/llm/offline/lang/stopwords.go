package lang

// stopwords are function words and conversational filler: they say how something is
// asked, not what is asked, so they never count as evidence for a tool.
var stopwords = List("stopwords")

func SetOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func IsStopword(w string) bool { return stopwords[w] }
