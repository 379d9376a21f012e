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

// WithMinScore sets the score a clause needs before it is routed to a tool. Higher values
// make the model answer directly more often. Values <= 0 are ignored.
func WithMinScore(v float64) Option {
	return func(o *options) {
		if v > 0 {
			o.routing.MinScore = v
		}
	}
}

// WithMargin sets how many times the runner-up's score the best tool must reach for a
// clause to count as its own intent. Values < 1 are ignored.
func WithMargin(v float64) Option {
	return func(o *options) {
		if v >= 1 {
			o.routing.Margin = v
		}
	}
}

// WithListLimit caps how many items of a list are narrated. Values <= 0 are ignored.
func WithListLimit(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.listLimit = n
		}
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
