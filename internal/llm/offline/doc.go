// Package offline is switchboard's embedded, deterministic language model: an [llms.Model]
// that needs no network and no keys, so the service, its tests and its evals run anywhere.
//
// It is a small lexical model, not a script. Everything it decides comes from the request
// it is given: the system prompt, the messages and the tool definitions. It knows no agent,
// tool or sentence by name, so a new Agent Definition with a good description and a few
// examples is routed with no code change. Per request it does one of four things:
//
//   - routing: with ask_* tools and no tool results yet, it splits the last user message
//     into clauses, scores each clause against every tool's description and the few-shot
//     examples in the system prompt (BM25 with light stemming, typo tolerance and the
//     shapes of codes such as flight numbers), and returns one tool call per chosen tool,
//     honouring an "at most N" cap in the prompt. A clause maps to at most one tool, and
//     only when it clears a score and a margin over the runner-up on more than light nouns
//     ("status", "time"); words narrowing a request ("coupons for travel gear") count for
//     less than the thing asked for; a clause that only frames or explains another ("before
//     I buy, ...", "the shoes I sent back, how's that going", "I moved house last month,
//     can you update my address", "the flights are sorted, now I need a catering quote")
//     joins it instead of adding a tool. When the words choose
//     no tool, or leave room for doubt in a message of one clause, the message is read as a
//     sentence (the Universal Sentence Encoder Lite, a small transformer run in Go, see
//     package encoder): one clearly closest to one tool's texts goes to that tool, and one
//     far from everything the words' tool says goes nowhere (GloVe word vectors, package
//     vectors, settle ties between tools the words put level). Bare sums and asides are
//     answered directly: greetings, thanks, small talk, creative asks ("tell me a joke about
//     airports") and questions about how the world is, or asking advice on life, whose
//     sentence is nearer to general knowledge than to any agent ("what year did netflix
//     start"), or that a small classifier over the sentence vector (package style) is sure
//     reads as chat or trivia, however many words they share with an agent;
//   - tool use: with other tools, it picks the best-matching tool(s) by their names,
//     descriptions and the examples a description lists, and fills their arguments from the
//     JSON-schema parameters and the request text;
//   - composition: when tool results follow the last user message, it narrates them the
//     way a concierge would: data reads by what its keys say (money, percentages, dates,
//     sellers), what only echoes the call's arguments or serves machines (opaque ids,
//     bookkeeping flags) is left out, each result gets a transition naming its topic (from
//     the tool's name), a list shows the records the request names ("1 of 3 orders"), or
//     those first, and partial or unavailable data gets a plain acknowledgment;
//   - summaries and chit-chat: with no tools, it summarises when the system prompt asks
//     for it, and otherwise answers directly.
//
// It is honest about what it is: it matches words, and the closeness in meaning of words and
// sentences; it does not understand them. On language and agents it was not tuned on it
// routes between seven turns in ten and nearly nine in ten, depending on how far the users'
// words are from the agents' texts (README, "Evals").
//
// # Map of the stages
//
// [Model.GenerateContent] (model.go) sorts the messages into a request (request.go) and takes
// one of four paths.
//
// Routing, with ask_ tools (route.go): asides and world questions are answered directly
// (aside.go, offtopic.go, chat.go, arith.go); the message is cut into clauses (clauses.go,
// context.go, phrasal.go) and each clause is scored against every agent's texts: its name,
// description and examples, and at a lower weight what its tools say they do, all read from the
// orchestrator's prompt (tokens.go, stopwords.go, lexicon.go, shape.go, weights.go, index.go,
// indexcache.go, plan.go), with closeness in meaning as the tie-break or the fallback
// (meaning.go, sentences.go). Each earlier message of the conversation is routed the same way,
// in the light of those before it, so a follow-up with no subject of its own continues the
// agents the turn before it went to, and one that names an earlier thing goes back to that
// thing's agent (followup.go). The word lists and several thresholds are in language.txt.
//
// Tool use, with a sub-agent's tools (tooluse.go): the request's main clause is planned
// against each tool's name, description and examples, the earlier request when the follow-up
// names no tool, and the arguments are filled from the words the user gave for them
// (args.go, schema.go).
//
// Answering, with tool results (compose.go): each result is narrated (render.go, facts.go,
// item.go, format.go, jsonvalue.go, topic.go, piece.go): a declared answer is said as written;
// otherwise the records the question names are picked (by their words, or by closeness in
// meaning), the facts it asks about are focused, one record's own lists and reference are
// shown, a thing no record is about is said to be missing, and a thing the data does not hold
// gets a plain sentence (unasked.go). A sub-agent whose one result holds nothing about the
// thing asked calls another of its tools once before answering (compose.go, lookElsewhere).
// The pieces are then arranged into one reply.
//
// Summaries and chat, with no tools (summary.go, chat.go).
//
// The English word lists and phrases these stages read, and their thresholds with where each
// was chosen, are in one embedded, commented file, language.txt (read by lists.go).
//
// Goroutine model: a [Model] is immutable after [New]; every call builds its own state,
// so one Model may serve any number of goroutines. Calls run on the caller's goroutine,
// start no goroutines, and return ctx.Err() once the context is done.
package offline
