package offline

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
	"github.com/tmc/langchaingo/llms"
)

func TestDeterminism(t *testing.T) {
	inputs := []struct {
		name string
		msgs []llms.MessageContent
		opts []llms.CallOption
	}{
		{"routing", routeMessages(orchestratorPrompt(3, conciergeAgents...), "what's my tier and any coupons for electronics, also is UA 456 on time"),
			[]llms.CallOption{llms.WithTools(askTools(conciergeAgents...))}},
		{"tool use", routeMessages("", "how many points do I have and what tier am I"), []llms.CallOption{llms.WithTools(rewardsTools)}},
		{"composition", turnWithResults("x", [3]string{"points_balance", `{}`, `{"status":"ok","data":{"a":1,"b":[1,2],"c":{"d":"e"}}}`}), nil},
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			first, err := New().GenerateContent(t.Context(), in.msgs, in.opts...)
			if err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			for range 20 {
				again, err := New().GenerateContent(t.Context(), in.msgs, in.opts...)
				if err != nil {
					t.Fatalf("GenerateContent() error = %v", err)
				}
				if diff := cmp.Diff(first, again); diff != "" {
					t.Fatalf("GenerateContent() not deterministic (-first +again):\n%s", diff)
				}
			}
		})
	}
}

func TestStreaming(t *testing.T) {
	msgs := turnWithResults("deals", [3]string{"search_offers", `{}`,
		`{"status":"ok","data":{"offers":[{"title":"Trail runner","price":89.9},{"title":"Road shoe","price":120}]}}`})
	var chunks []string
	resp, err := New().GenerateContent(t.Context(), msgs, llms.WithStreamingFunc(func(_ context.Context, b []byte) error {
		chunks = append(chunks, string(b))
		return nil
	}))
	if err != nil {
		t.Fatalf("GenerateContent() error = %v", err)
	}
	text := resp.Choices[0].Content
	if got := strings.Join(chunks, ""); got != text {
		t.Errorf("streamed %q, want the content %q", got, text)
	}
	if len(chunks) != len(strings.Fields(text)) {
		t.Errorf("streamed %d chunks, want one per word (%d)", len(chunks), len(strings.Fields(text)))
	}
	for _, c := range chunks {
		if strings.TrimSpace(c) == "" || strings.Contains(strings.TrimSpace(c), " ") {
			t.Errorf("chunk %q is not one word plus its spacing", c)
		}
	}
}

// TestStreamingChunksKept: the chunks share one copy of the text, so a callee that keeps a
// chunk and appends to it must not change the chunks after it.
func TestStreamingChunksKept(t *testing.T) {
	const text = "Your order shipped on Monday."
	var kept [][]byte
	err := stream(t.Context(), text, func(_ context.Context, b []byte) error {
		kept = append(kept, b)
		_ = append(b, "XX"...) // a callee's append to its chunk
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(bytes.Join(kept, nil)); got != text {
		t.Errorf("kept chunks read %q, want %q", got, text)
	}
}

func TestStreamingCallbackError(t *testing.T) {
	stop := errors.New("client went away")
	calls := 0
	_, err := New().GenerateContent(t.Context(), routeMessages("", "hello there"), llms.WithStreamingFunc(func(context.Context, []byte) error {
		calls++
		return stop
	}))
	if !errors.Is(err, stop) {
		t.Errorf("GenerateContent() error = %v, want %v", err, stop)
	}
	if calls != 1 {
		t.Errorf("callback called %d times after failing, want 1", calls)
	}
}

func TestStreamingSkippedForToolCalls(t *testing.T) {
	_, err := New().GenerateContent(t.Context(), routeMessages(orchestratorPrompt(3, conciergeAgents...), "any deals?"),
		llms.WithTools(askTools(conciergeAgents...)),
		llms.WithStreamingFunc(func(context.Context, []byte) error { return errors.New("must not stream") }))
	if err != nil {
		t.Errorf("GenerateContent() error = %v, want tool calls and no streaming", err)
	}
}

func TestCancellation(t *testing.T) {
	t.Run("before the call", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		resp, err := New().GenerateContent(ctx, routeMessages("", "hi"))
		if !errors.Is(err, context.Canceled) || resp != nil {
			t.Errorf("GenerateContent() = %v, %v; want nil, %v", resp, err, context.Canceled)
		}
	})
	t.Run("while streaming", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		calls := 0
		_, err := New().GenerateContent(ctx, routeMessages("", "what can you do?"), llms.WithStreamingFunc(func(context.Context, []byte) error {
			calls++
			cancel()
			return nil
		}))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("GenerateContent() error = %v, want %v", err, context.Canceled)
		}
		if calls != 1 {
			t.Errorf("streamed %d chunks after cancel, want 1", calls)
		}
	})
}

func TestGenerationInfo(t *testing.T) {
	resp, err := New().GenerateContent(t.Context(), routeMessages(orchestratorPrompt(3, conciergeAgents...), "show offers and my points"),
		llms.WithTools(askTools(conciergeAgents...)))
	if err != nil {
		t.Fatalf("GenerateContent() error = %v", err)
	}
	info := resp.Choices[0].GenerationInfo
	p, _ := info["PromptTokens"].(int)
	c, _ := info["CompletionTokens"].(int)
	total, _ := info["TotalTokens"].(int)
	if p <= 0 || c <= 0 || total != p+c {
		t.Errorf("GenerationInfo = %v, want positive int counts that add up", info)
	}
}

func TestCall(t *testing.T) {
	got, err := New().Call(t.Context(), "thanks!")
	if err != nil {
		t.Fatalf("Call() error = %v", err)
	}
	if want := "You're welcome! Is there anything else I can help with?"; got != want {
		t.Errorf("Call() = %q, want %q", got, want)
	}
}

func TestNoMessages(t *testing.T) {
	if _, err := New().GenerateContent(t.Context(), nil); !errors.Is(err, ErrNoMessages) {
		t.Errorf("GenerateContent(nil) error = %v, want %v", err, ErrNoMessages)
	}
}

func TestSummary(t *testing.T) {
	system := llms.TextParts(llms.ChatMessageTypeSystem, "Summarise the earlier conversation for the next agent.")
	long := "user: any deals on running shoes? assistant: I found three offers on running shoes from Acme. " +
		"user: which running shoes are cheapest? assistant: The Acme trail runner is the cheapest at 89 dollars. " +
		"user: ok. assistant: Anything else? user: what about socks to go with the running shoes? " +
		"assistant: There is a coupon for socks this week at Acme."
	tests := []struct {
		name  string
		human string
		want  string
	}{
		{"short content is kept", "user: hi   there", "user: hi there"},
		{"long content is cut to sentences within budget", long,
			"assistant: I found three offers on running shoes from Acme. user: which running shoes are cheapest? user: what about socks to go with the running shoes?"},
	}
	m := New(WithSummaryWords(30))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := m.GenerateContent(t.Context(), []llms.MessageContent{system, llms.TextParts(llms.ChatMessageTypeHuman, tt.human)})
			if err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			got := resp.Choices[0].Content
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("summary mismatch (-want +got):\n%s", diff)
			}
			if n := len(strings.Fields(got)); n > 30 {
				t.Errorf("summary has %d words, want at most 30", n)
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	m := New()
	msgs := routeMessages(orchestratorPrompt(3, conciergeAgents...), "show offers and my points")
	want, err := m.GenerateContent(t.Context(), msgs, llms.WithTools(askTools(conciergeAgents...)))
	if err != nil {
		t.Fatalf("GenerateContent() error = %v", err)
	}
	var wg sync.WaitGroup
	errs := make([]string, 8)
	for i := range errs {
		wg.Go(func() {
			got, err := m.GenerateContent(context.Background(), msgs, llms.WithTools(askTools(conciergeAgents...)))
			if err != nil {
				errs[i] = err.Error()
				return
			}
			errs[i] = cmp.Diff(want, got)
		})
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("goroutine %d: %s", i, e)
		}
	}
}

// Prepare reads the agents' texts when a server binds them, so no turn waits for it: it
// keeps the index the first turn will use (route's TestPrepareAgentsEncodesTheTexts checks
// that the index it prepares holds the texts' sentence vectors).
func TestPrepareReadsTheAgentsTexts(t *testing.T) {
	m := New()
	system := orchestratorPrompt(3, conciergeAgents...)
	tools := askTools(conciergeAgents...)
	var _ interface {
		Prepare(string, []llms.Tool)
	} = m
	m.Prepare(system, tools)
	sources := route.RoutingSources(system, tools)
	m.indexes.Get(fingerprint(sources), func() *route.Index {
		t.Fatal("after Prepare, the routing index is not kept yet")
		return nil
	})
	m.Prepare(system, nil) // no ask_ tools: nothing to do, and no panic
}
