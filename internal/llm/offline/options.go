package offline

import (
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
)

// Option tunes a [Model].
type Option func(*options)

type options struct {
	routing      route.Settings // the score and margin a clause needs to choose a tool
	listLimit    int            // items shown per list when narrating tool results
	summaryWords int            // word budget of a summary
}

// defaultOptions are the settings of language.txt's [minScore], [margin], [listLimit] and
// [summaryWords], which say where each was chosen.
func defaultOptions() options {
	return options{
		routing:      route.Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")},
		listLimit:    int(lang.Number("listLimit")),
		summaryWords: int(lang.Number("summaryWords")),
	}
}

// WithSummaryWords sets the word budget of summaries. Values <= 0 are ignored.
func WithSummaryWords(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.summaryWords = n
		}
	}
}
