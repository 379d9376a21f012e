package web

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/principal"
)

// principalKey is where the authenticated principal sits in the gin context.
const principalKey = "switchboard.principal"

// requireBearer authenticates with Config.Auth (by default the Authorization: Bearer token).
// Rejections are 401 with a message that says what is wrong and never echoes the credential.
func (s *server) requireBearer(c *gin.Context) {
	r := httpkit.Authenticate(c.Writer, c.Request, s.cfg.Auth)
	if r == nil {
		c.Abort()
		return
	}
	p, _ := principal.FromContext(r.Context())
	c.Set(principalKey, p)
	c.Request = r
	c.Next()
}

// requireTurnAccess admits what requireBearer admits, or the turn-scoped token that events_url
// carries (a browser's EventSource cannot set headers). A turn token for another turn is
// rejected.
func (s *server) requireTurnAccess(c *gin.Context) {
	if c.GetHeader("Authorization") != "" || c.Query("token") == "" {
		s.requireBearer(c)
		return
	}
	p, err := s.cfg.TurnTokens.Verify(c.Query("token"), c.Param("id"))
	if err != nil {
		httpkit.DropBody(c.Writer, c.Request)
		// Expired, forged or for another turn: the link no longer admits anyone. Saying so
		// reveals nothing about the turn, which a valid token alone could name.
		c.Header("WWW-Authenticate", `Bearer realm="switchboard", error="invalid_token"`)
		abort(c, http.StatusUnauthorized, "invalid_token", "This events link has expired or is not valid for this turn: fetch the turn again with your bearer token.")
		return
	}
	c.Set(principalKey, p)
	c.Request = c.Request.WithContext(principal.NewContext(c.Request.Context(), p))
	c.Next()
}

func principalOf(c *gin.Context) principal.Principal {
	p, _ := c.Get(principalKey)
	pp, _ := p.(principal.Principal)
	return pp
}
