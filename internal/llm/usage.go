package llm

import "time"

// Usage is what one GenerateContent call cost.
type Usage struct {
	InputTokens  int
	OutputTokens int
	TotalTokens  int
	// Attempts is the number of provider requests made (1 + retries).
	Attempts int
	// Duration is the wall time of the whole call, retries and backoff included.
	Duration time.Duration
}

// usageFrom reads token counts from a choice's GenerationInfo. The providers use
// different keys: openai PromptTokens/CompletionTokens, anthropic InputTokens/
// OutputTokens, googleai both the openai names and snake_case ones (as int32).
func usageFrom(info map[string]any) Usage {
	var u Usage
	u.InputTokens = firstInt(info, "PromptTokens", "InputTokens", "input_tokens")
	u.OutputTokens = firstInt(info, "CompletionTokens", "OutputTokens", "output_tokens")
	u.TotalTokens = firstInt(info, "TotalTokens", "total_tokens")
	if u.TotalTokens == 0 {
		u.TotalTokens = u.InputTokens + u.OutputTokens
	}
	return u
}

func firstInt(info map[string]any, keys ...string) int {
	for _, k := range keys {
		switch v := info[k].(type) {
		case int:
			return v
		case int32:
			return int(v)
		case int64:
			return int(v)
		case float64:
			return int(v)
		}
	}
	return 0
}
