package lang

// stopwords are function words and conversational filler: they say how something is
// asked, not what is asked, so they never count as evidence for a tool.
var stopwords = List("stopwords")

// IsStopword reports whether w, lowercased, is a stopword.
func IsStopword(w string) bool { return stopwords[w] }
