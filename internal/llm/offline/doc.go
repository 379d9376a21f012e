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
//     examples in the system prompt (BM25 with light stemming, other forms of a word
//     ("electric", "electricity") and words that mean the same in every trade ("swap",
//     "exchange"), typo tolerance and the shapes of codes such as flight
//     numbers; "back" counts only in a phrasal verb), and returns one tool call per chosen tool,
//     honouring an "at most N" cap in the prompt. A clause maps to at most one tool, and
//     only when it clears a score and a margin over the runner-up on more than light nouns
//     ("status", "time"); words narrowing a request ("coupons for travel gear") count for
//     less than the thing asked for; a clause that only frames or explains another ("before
//     I buy, ...", "the shoes I sent back, how's that going", "I moved house last month,
//     can you update my address", "the flights are sorted, now I need a catering quote")
//     joins it instead of adding a tool. When the words choose
//     no tool, or leave room for doubt in a message of one clause, the message is read as a
//     sentence (the Universal Sentence Encoder Lite, a small transformer run in Go, see
//     package encoder): one clearly closest to one tool's texts (its examples, each phrase
//     of its description and what its tools do) goes to that tool, and one
//     far from everything the words' tool says goes nowhere (GloVe word vectors, package
//     vectors, settle ties between tools the words put level). Bare sums and asides are
//     answered directly: greetings, thanks, small talk, what the assistant is, asking for a
//     person, finding fault with the help, dropping the ask ("never mind"), a first message
//     that asks nothing yet ("can you help me"), creative asks ("tell me a joke about
//     airports") and questions about how the world is, or asking advice on life, whose
//     sentence is nearer to general knowledge than to any agent ("what year did netflix
//     start"), or that a small classifier over the sentence vector (package style) is sure
//     reads as chat or trivia, however many words they share with an agent;
//   - tool use: with other tools, it picks the best-matching tool(s) by their names,
//     descriptions and the examples a description lists (read as sentences only when their
//     wording leans to another tool than the words chose: encoding one costs milliseconds),
//     and fills their arguments from the JSON-schema parameters and the request text;
//   - composition: when tool results follow the last user message, it narrates them the
//     way a concierge would: data reads by what its keys say (money, percentages, dates,
//     sellers), what only echoes the call's arguments or serves machines (opaque ids,
//     bookkeeping flags) is left out, each result gets a transition naming its topic (from
//     the tool's name), a list shows the records the request names ("1 of 3 orders") or
//     dates in the days it names from the date the system prompt states as today ("did we
//     win last sunday"; the model has no clock), or those first, and partial or unavailable
//     data gets a plain acknowledgment;
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
// Four packages under internal/llm/offline, in the order a turn meets them. Among them,
// imports run one way: lang stands alone, route builds on lang only, answer on lang (and may
// on route), and offline wires them together, handing route what only answer can read (a
// tool's parameters):
//
//	offline (this package): the Model, the request, the dispatch
//	  model.go       New, Prepare, GenerateContent: parse, take one of four paths, stream
//	  request.go     the messages sorted into system prompt, user turns, tools and results
//	  options.go     Option and its defaults; errors.go; jsonrunes.go (token estimates)
//	  indexcache.go  bounded caches of indexes, vocabularies and caps per prompt and tool set
//	  1 routing, with ask_ tools: routing.go (Model.route) -> route.Decide
//	  2 tool use, with a sub-agent's tools: tooluse.go (Model.useTools) -> route.ChooseTools,
//	    given answer.FitBoost and answer.SearchTool, then answer.ExtractArgs
//	  3 answering, with tool results: compose.go (Model.compose) -> answer.Narrate per
//	    result, answer.Reply; lookElsewhere calls other tools once when a result holds
//	    none of the words asked with (the one that does answers), lookFurther when it holds
//	    only some and other tools' descriptions name the rest (one holding more answers);
//	    route.UnofferedAction adds an act no tool can do
//	  4 summaries and chat, with no tools: summary.go, route.DirectAnswer
//
//	route: what a message asks for
//	  chat.go, arith.go      greetings, thanks, sums, capabilities, asking for a person,
//	                         complaints, dismissals: answered directly
//	  aside.go, offtopic.go  small talk, creative asks, world questions: answered directly
//	  clauses.go, context.go, phrasal.go  clauses; those that only frame another join it
//	  index.go, weights.go, lexicon.go    BM25 over each candidate's texts; query weights
//	  plan.go                each clause to at most one candidate, on a score and a margin
//	  meaning.go, sentences.go  closeness in meaning (GloVe words, USE sentences): the
//	                         tie-break and the fallback
//	  route.go, followup.go  a conversation's messages in turn; follow-ups; the cap (Decide)
//	  tools.go, acts.go      a sub-agent's tool choice; acts no tool offers
//
//	answer: a sub-agent's arguments and reply
//	  schema.go, args.go     parameters read, arguments filled from the user's words
//	  tools.go               the tools' vocabulary; what a request's values fit, for tool choice
//	  compose.go             Narrate one result, Reply with all; render.go (an object, a
//	                         list), records.go (which records the question names),
//	                         closeness.go (words close in meaning, typos of the trade),
//	                         relative.go (today's date read from the system prompt, and
//	                         the records dated in the days named from it: "last sunday"),
//	                         facts.go, item.go, format.go, unasked.go (what the data does
//	                         not hold), total.go (sums asked for), topic.go, piece.go,
//	                         spelling.go, jsonvalue.go
//
//	lang: what every stage shares about English
//	  words.go, stopwords.go, shape.go  words and byte spans, stems, terms, typos, code
//	                         shapes, the words that bound a price
//	  meaning.go, names.go   word vectors; identifiers read as words
//	  dictionary.go          the English word list routing and answering share
//	  initials.go            "pto" read as the tool's words it spells, for tool choice and answers
//	  request.go             the ask_ prefix and the "(earlier: ...)" quoting of follow-ups
//	  cache.go               the bounded cache every per-prompt cache is
//	  lists.go, language.txt every word list and threshold, each commented with why it is
//	                         there or where it was chosen, and which file reads it
//
// Beside them, encoder, vectors, style and lexicon hold the embedded sentence encoder, GloVe
// word vectors, chat/trivia classifier and WordNet word list, each with its generator.
//
// Goroutine model: a [Model] is immutable after [New]; every call builds its own state,
// so one Model may serve any number of goroutines. Calls run on the caller's goroutine,
// start no goroutines, and return ctx.Err() once the context is done.
package offline
