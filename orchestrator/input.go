package orchestrator

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxMessageRunes bounds a user message, in characters.
const MaxMessageRunes = 4000

// Bounds of a [StartRequest]'s other fields, in bytes: an episode id is ours (ep_ and 24 hex
// digits) or a client's own name for one, a locale is a BCP 47 tag, a location a place name.
const (
	maxEpisodeID = 128
	maxLocale    = 35
	maxLocation  = 200
)

// InputError is a [StartRequest] the service refuses. Its text is written for the client: it
// names the field and what is wrong, and never echoes the input.
type InputError struct {
	Field   string // "message", "episode_id", "locale" or "location"
	Problem string
}

func (e *InputError) Error() string { return e.Field + " " + e.Problem + "." }

// CheckMessage says what is wrong with a user message, if anything, as an [*InputError]. The
// service checks every turn with it; a protocol handler may call it while parsing, to refuse
// in its own terms before anything starts.
func CheckMessage(text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return &InputError{Field: "message", Problem: "is required and must not be blank"}
	case !utf8.ValidString(text):
		return &InputError{Field: "message", Problem: "must be valid UTF-8"}
	case utf8.RuneCountInString(text) > MaxMessageRunes:
		return &InputError{Field: "message", Problem: fmt.Sprintf("is longer than %d characters", MaxMessageRunes)}
	}
	return nil
}

// check says what is wrong with r, if anything: its message, or a field too long to be real.
func (r StartRequest) check() error {
	if err := CheckMessage(r.Message); err != nil {
		return err
	}
	for _, f := range []struct {
		name, value string
		max         int
	}{{"episode_id", r.EpisodeID, maxEpisodeID}, {"locale", r.Locale, maxLocale}, {"location", r.Location, maxLocation}} {
		if len(f.value) > f.max {
			return &InputError{Field: f.name, Problem: fmt.Sprintf("is longer than %d bytes", f.max)}
		}
	}
	if r.EpisodeID != "" && !episodeIDShape(r.EpisodeID) {
		return &InputError{Field: "episode_id", Problem: `must be printable characters without spaces, "/" or "\", and not "." or ".."`}
	}
	return nil
}

// episodeIDShape reports whether a client's episode id can name the episode everywhere it
// goes: in a URL path (GET /v1/episodes/{id}), a log line, a header. Ours (ep_ and hex
// digits) always can.
func episodeIDShape(id string) bool {
	if id == "." || id == ".." {
		return false // a URL path resolves them away
	}
	for _, r := range id {
		if r == '/' || r == '\\' || r == utf8.RuneError || !unicode.IsGraphic(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}
