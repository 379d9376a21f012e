package stream

// VocabularyVersion versions the wire vocabulary: the event names in [Names] and the JSON shape
// of each event. Adding an optional field keeps the version; renaming or removing an event or a
// field, or changing a field's meaning, bumps it, because clients and the eval harness key on them.
const VocabularyVersion = "1"
