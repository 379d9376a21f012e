// Package evals measures routing and answer quality: it loads eval datasets (YAML cases of
// one or more turns with the sub-agents each turn should reach, and optionally phrases its
// reply must or must not contain), replays them through a [Target] (the
// in-process turn service, or a running server over HTTP and SSE), scores what happened and
// writes report.json, report.md and report.html. It owns the dataset format, the scorers
// (exact-set routing, per-vertical precision and recall, the confusion matrix, intent-switch
// and follow-up accuracy, fan-out correctness, failure acknowledgment, answer accuracy, leak detection,
// latency, an optional LLM judge), the comparison with a baseline report, the gates
// `switchboard eval` exits on (minimum routing and answer accuracy, coverage of every ordered
// pair of sub-agents) and the candidate examples [Suggest] draws from the misses.
//
// Goroutine model: [Run] owns its goroutines. Cases without faults run concurrently, bounded
// by [Config].Concurrency through errgroup; the turns of one case always run in order on one
// goroutine, in one episode. Cases with faults run one at a time after them, because faults
// are injected into a shared context service. A [Target] must be safe for concurrent use.
// Scoring and rendering run on the caller's goroutine once every case has finished.
package evals
