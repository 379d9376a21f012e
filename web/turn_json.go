package web

import (
	"time"

	"github.com/switchboard-ai/switchboard/orchestrator"
)

// turnJSON is a stored turn as GET /v1/turns/{id} and GET /v1/episodes/{id} serve it: the
// API's own shape, so that what a client sees is chosen here rather than by the domain
// record's tags. Its reply is the one the stream guard emitted.
type turnJSON struct {
	TurnID    string                 `json:"turn_id"`
	EpisodeID string                 `json:"episode_id"`
	Message   string                 `json:"message"`
	Locale    string                 `json:"locale,omitempty"`
	Location  string                 `json:"location,omitempty"`
	State     string                 `json:"state"`
	Outcome   string                 `json:"outcome,omitempty"`
	Reply     string                 `json:"reply,omitempty"`
	Routing   *orchestrator.Decision `json:"routing,omitempty"`
	Created   time.Time              `json:"created"`
	Completed time.Time              `json:"completed,omitzero"`
	// EventsURL is a fresh link to the turn's events, for a client whose earlier link
	// expired (GET /v1/turns/{id} only).
	EventsURL string `json:"events_url,omitempty"`
}

// episodeJSON is an episode as GET /v1/episodes/{id} serves it.
type episodeJSON struct {
	EpisodeID string     `json:"episode_id"`
	Turns     []turnJSON `json:"turns"`
	// More says that the episode has turns older than those served (?limit=N).
	More bool `json:"more,omitempty"`
}

func turnView(rec orchestrator.TurnRecord) turnJSON {
	return turnJSON{
		TurnID: rec.ID, EpisodeID: rec.EpisodeID, Message: rec.Message, Locale: rec.Locale, Location: rec.Location,
		State: string(rec.State), Outcome: string(rec.Outcome), Reply: rec.Reply, Routing: rec.Decision,
		Created: rec.Created, Completed: rec.Completed,
	}
}

func episodeView(ep orchestrator.Episode) episodeJSON {
	out := episodeJSON{EpisodeID: ep.ID, Turns: make([]turnJSON, 0, len(ep.Turns))}
	for _, t := range ep.Turns {
		out.Turns = append(out.Turns, turnView(t))
	}
	return out
}
