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
