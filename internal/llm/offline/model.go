package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/answer"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
	"github.com/tmc/langchaingo/llms"
)

// Model is the offline language model. Create it with [New]; the zero value is not ready
// for use. It is safe for concurrent use.
type Model struct {
	opts    options
	indexes *lang.Cache[key, *route.Index]
	vocabs  *lang.Cache[key, answer.ToolVocab]
	offers  *lang.Cache[key, map[string]bool]
	domains *lang.Cache[key, map[string]bool]
	// userSentences holds users' sentence vectors by principal and text (see sentencesOf).
	userSentences *lang.Cache[key, []float32]
	caps          *lang.Cache[string, int]             // route.ParseCap of each orchestrator prompt
	routings      *lang.Cache[key, *route.Index]       // each orchestrator's index (see routingIndex)
	trades        *lang.Cache[string, map[string]bool] // tradeTerms of each sub-agent prompt
}

var _ llms.Model = (*Model)(nil)

// New returns an offline model tuned by opts.
func New(opts ...Option) *Model {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	// The English word list, word vectors and sentence encoder are read once per process,
	// here rather than on the first turn, which would otherwise wait about 45 ms for them.
	route.Load()
	return &Model{
		opts:          o,
		indexes:       lang.NewCache[key, *route.Index](maxCached),
		vocabs:        lang.NewCache[key, answer.ToolVocab](maxCached),
		offers:        lang.NewCache[key, map[string]bool](maxCached),
		domains:       lang.NewCache[key, map[string]bool](maxCached),
		userSentences: lang.NewCache[key, []float32](maxUserSentences),
		caps:          lang.NewCache[string, int](maxCached),
		routings:      lang.NewCache[key, *route.Index](maxCached),
		trades:        lang.NewCache[string, map[string]bool](maxCached),
	}
}

// Prepare does ahead of the first turn what routing among tools needs: the index of the
// agents' texts and their sentence vectors, and those of the questions no agent answers
// (see offtopic.go), about half a second for a handful of agents.
// A server calls it when it binds its agents (see llm.Preparer); without it, the first turn
// whose message only a sentence can route waits for them. Tools other than ask_ ones, and a
// call with none, are ignored.
func (m *Model) Prepare(system string, tools []llms.Tool) {
	req := &request{system: system, tools: tools}
	if ask := req.routingTools(); len(ask) > 0 {
		route.PrepareAgents(m.index(route.RoutingSources(system, ask)))
	}
}

// Stop reasons reported in [llms.ContentChoice.StopReason].
const (
	StopReasonToolCalls = "tool_calls"
	StopReasonStop      = "stop"
)

// GenerateContent answers messages from what they carry (see the package doc for the four
// behaviours). It returns exactly one choice: tool calls with an empty Content, or text.
// With [llms.WithStreamingFunc] the text is also streamed in word-sized chunks before
// GenerateContent returns; a callback error stops the stream and is returned wrapped. The
// tool choice "none" turns tool calls off. GenerationInfo carries estimated token counts
// under "PromptTokens", "CompletionTokens" and "TotalTokens".
func (m *Model) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(messages) == 0 {
		return nil, ErrNoMessages
	}
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	req := parseRequest(messages, opts.Tools)
	req.encode = m.sentencesOf(ctx)
	allowCalls := opts.ToolChoice != "none"

	var calls []llms.ToolCall
	var text string
	switch {
	case len(req.results) > 0:
		if allowCalls {
			calls = m.lookElsewhere(req)
		}
		if len(calls) == 0 {
			text = m.compose(req)
		}
	case len(req.routingTools()) > 0:
		calls, text = m.route(req, allowCalls)
	case len(req.plainTools()) > 0:
		calls, text = m.useTools(req, allowCalls)
	case strings.Contains(strings.ToLower(req.system), "summar"): // asked for a summary
		text = m.summarise(req)
	default:
		text = route.DirectAnswer(req.lastHuman(), nil)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.StreamingFunc != nil && text != "" {
		if err := stream(ctx, text, opts.StreamingFunc); err != nil {
			return nil, err
		}
	}

	choice := &llms.ContentChoice{Content: text, StopReason: StopReasonStop}
	completion := estimateTokens(text)
	if len(calls) > 0 {
		choice.ToolCalls = calls
		choice.FuncCall = calls[0].FunctionCall
		choice.StopReason = StopReasonToolCalls
		for _, c := range calls {
			completion += estimateTokens(c.FunctionCall.Name + c.FunctionCall.Arguments)
		}
	}
	prompt := promptTokens(messages, opts.Tools)
	choice.GenerationInfo = map[string]any{
		"PromptTokens":     prompt,
		"CompletionTokens": completion,
		"TotalTokens":      prompt + completion,
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{choice}}, nil
}

// Call answers a single prompt as a human message.
//
// Deprecated: use [Model.GenerateContent]; Call exists to satisfy [llms.Model].
func (m *Model) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// stream sends text in chunks of one word plus the whitespace after it, so that the
// chunks concatenate to exactly text.
func stream(ctx context.Context, text string, fn func(context.Context, []byte) error) error {
	// One copy of the text serves every chunk (a copy per word was some seventy of a turn's
	// allocations); each chunk's capacity ends with it, so that a callee appending to one
	// cannot write over the next.
	b := []byte(text)
	for i := 0; i < len(text); {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := i + chunkEnd(text[i:])
		if err := fn(ctx, b[i:n:n]); err != nil {
			return fmt.Errorf("offline: streaming: %w", err)
		}
		i = n
	}
	return nil
}

// chunkEnd returns the length of the first chunk: leading space, a word, trailing space.
func chunkEnd(s string) int {
	i := 0
	for i < len(s) && lang.IsSpace(s[i]) {
		i++
	}
	for i < len(s) && !lang.IsSpace(s[i]) {
		i++
	}
	for i < len(s) && lang.IsSpace(s[i]) {
		i++
	}
	return i
}

func newToolCall(n int, name string, args map[string]any) llms.ToolCall {
	raw, err := json.Marshal(args)
	if err != nil { // values are strings, numbers and bools: cannot fail
		raw = []byte("{}")
	}
	return llms.ToolCall{
		ID:           fmt.Sprintf("call_%d", n),
		Type:         "function",
		FunctionCall: &llms.FunctionCall{Name: name, Arguments: string(raw)},
	}
}

// estimateTokens approximates a tokenizer at four characters per token.
func estimateTokens(s string) int {
	return (runeCount(s) + 3) / 4
}

// runeCount is utf8.RuneCountInString, eight bytes at a time where they are all ASCII: the
// prompt's runes are counted on every call, its agents' texts among them, and counting them
// a byte at a time was a thirtieth of the server's CPU per turn.
func runeCount(s string) int {
	n := 0
	for len(s) > 0 {
		if len(s) >= 8 && asciiWord(s) {
			n, s = n+8, s[8:]
			continue
		}
		size := 1
		if s[0] >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(s) // an invalid byte is one rune, as ranging counts it
		}
		n, s = n+1, s[size:]
	}
	return n
}

// asciiWord says whether the first eight bytes of s are ASCII.
func asciiWord(s string) bool {
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	return w&0x8080808080808080 == 0
}

// promptTokens estimates the prompt's tokens as estimateTokens would of its text: the
// messages, and each tool's name, description and parameters as JSON. It counts runes rather
// than build that text, as it runs every turn.
func promptTokens(messages []llms.MessageContent, tools []llms.Tool) int {
	runes := 0
	for _, m := range messages {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				runes += runeCount(p.Text)
			case llms.ToolCall:
				if p.FunctionCall != nil {
					runes += runeCount(p.FunctionCall.Name) + runeCount(p.FunctionCall.Arguments)
				}
			case llms.ToolCallResponse:
				runes += runeCount(p.Content)
			}
		}
	}
	for _, t := range tools {
		if t.Function == nil {
			continue
		}
		runes += runeCount(t.Function.Name) + runeCount(t.Function.Description)
		if n, ok := jsonRunes(t.Function.Parameters); ok {
			runes += n
		} else if raw, err := json.Marshal(t.Function.Parameters); err == nil {
			runes += utf8.RuneCount(raw)
		}
	}
	return (runes + 3) / 4 // as estimateTokens
}
