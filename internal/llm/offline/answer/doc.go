// Package answer is a sub-agent's side of the model, apart from choosing its tool: filling a
// tool's arguments from the user's words, and writing the reply from the tools' results.
//
// Arguments (args.go, schema.go, tools.go): ParamsOf reads a tool's JSON-schema parameters,
// ExtractArgs fills each from the request by its kind (flight numbers, ids, numbers, places,
// dates, free text without the words the tools are described with, see VocabOf), and FitBoost
// and SearchTool tell the model's tool choice (route.ChooseTools, which reads no schema) what
// the request's values fit.
//
// Replies (compose.go and the files it calls): Narrate turns one result into a piece (a
// declared answer as written; otherwise the records the question names, the facts it asks
// about, a plain sentence for what the data does not hold or could not be fetched; the days a
// request names relative to the date the system prompt states as today, see CutToday, pick the
// records dated in them), and Reply arranges the pieces of a turn into one text.
// HoldsNothingAsked tells the model when a result holds none of the words asked with, so that
// other tools may be called first.
//
// It reads the request only as text, so it knows nothing of routing. Everything here is
// deterministic and safe for concurrent use.
package answer
