package a2aserver

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
)

// agentCard is the A2A v0.3 AgentCard, with the fields switchboard publishes.
type agentCard struct {
	ProtocolVersion      string                    `json:"protocolVersion"`
	Name                 string                    `json:"name"`
	Description          string                    `json:"description"`
	URL                  string                    `json:"url"`
	PreferredTransport   string                    `json:"preferredTransport"`
	AdditionalInterfaces []agentInterface          `json:"additionalInterfaces"`
	Version              string                    `json:"version"`
	Capabilities         agentCapabilities         `json:"capabilities"`
	SecuritySchemes      map[string]securityScheme `json:"securitySchemes"`
	Security             []map[string][]string     `json:"security"`
	DefaultInputModes    []string                  `json:"defaultInputModes"`
	DefaultOutputModes   []string                  `json:"defaultOutputModes"`
	Skills               []agentSkill              `json:"skills"`
}

type agentInterface struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
}

type agentCapabilities struct {
	Streaming              bool `json:"streaming"`
	PushNotifications      bool `json:"pushNotifications"`
	StateTransitionHistory bool `json:"stateTransitionHistory"`
}

type securityScheme struct {
	Type         string `json:"type"`
	Scheme       string `json:"scheme"`
	BearerFormat string `json:"bearerFormat,omitempty"`
	Description  string `json:"description,omitempty"`
}

type agentSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples,omitempty"`
}

// newAgentCard describes the orchestrator; only the URL is left for each request to fill.
func newAgentCard(cfg Config) agentCard {
	def := cfg.Orchestrator
	name := def.Name
	if name == "" {
		name = def.ID
	}
	version := cfg.Version
	if version == "" {
		version = "dev"
	}
	card := agentCard{
		ProtocolVersion:    protocolVersion,
		Name:               name,
		Description:        def.Description,
		PreferredTransport: transport,
		Version:            version,
		Capabilities:       agentCapabilities{Streaming: true},
		SecuritySchemes: map[string]securityScheme{"bearer": {
			Type: "http", Scheme: "bearer", BearerFormat: "JWT",
			Description: "A JWT whose subject is the user the agent acts for, or a service it trusts to act for the user named in metadata.principal.",
		}},
		Security:           []map[string][]string{{"bearer": {}}},
		DefaultInputModes:  []string{textMode},
		DefaultOutputModes: []string{textMode},
		Skills:             []agentSkill{},
	}
	for _, d := range cfg.SubAgents {
		skill := agentSkill{ID: d.ID, Name: d.Name, Description: d.Description, Tags: []string{d.ID}, Examples: d.Examples}
		if skill.Name == "" {
			skill.Name = d.ID
		}
		card.Skills = append(card.Skills, skill)
	}
	return card
}

// agentCardRoute serves GET /.well-known/agent-card.json (public).
func (s *Handler) agentCardRoute(w http.ResponseWriter, r *http.Request) {
	card := s.card
	if cur := s.cfg.Current; cur != nil {
		// The definitions were reloaded since start: describe what turns use now.
		a := s.cfg
		a.Orchestrator, a.SubAgents = cur()
		card = newAgentCard(a)
	}
	card.URL = s.publicBase(r) + "/a2a"
	card.AdditionalInterfaces = []agentInterface{{URL: card.URL, Transport: transport}}
	if s.cfg.PublicURL == "" {
		// The URL echoes this request's Host: a shared cache must not hand it to another.
		w.Header().Set("Vary", "Host, X-Forwarded-Proto")
	}
	writeJSON(w, card)
}

// publicBase is the base URL callers reach the service at: the configured one, or this
// request's scheme and Host, with the path prefix a program mounting the handler stripped.
func (s *Handler) publicBase(r *http.Request) string {
	if u := s.cfg.PublicURL; u != "" {
		return strings.TrimRight(u, "/")
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	host := r.Host
	if host == "" || strings.ContainsAny(host, "/@?#\\ \t") {
		host = "localhost"
	}
	return (&url.URL{Scheme: scheme, Host: host, Path: httpkit.MountPrefix(r)}).String()
}
