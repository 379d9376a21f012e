// Package answer writes a sub-agent's reply from its tools' results, the way a concierge
// would: Narrate turns one result into a piece (a declared answer as written; otherwise the
// records the question names, the facts it asks about, a plain sentence for what the data
// does not hold or could not be fetched), and Reply arranges the pieces of a turn into one
// text. NamesNothingAsked tells the model when a result lists nothing about the thing asked,
// so that another tool may be called first.
//
// It reads the request only as text (the last user message), so it knows nothing of routing.
// Everything here is deterministic and safe for concurrent use.
package answer
