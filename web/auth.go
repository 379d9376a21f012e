package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/switchboard-ai/switchboard/principal"
)

// Authenticator turns a bearer token into the principal it speaks for.
type Authenticator interface {
	Verify(ctx context.Context, token string) (principal.Principal, error)
}

var _ Authenticator = (*principal.Verifier)(nil)

// principalKey is where the authenticated principal sits in the gin context.
const principalKey = "switchboard.principal"

// requireBearer authenticates with the Authorization header. Rejections are 401 with a
// message that says what is wrong and never echoes the token.
func (s *server) requireBearer(c *gin.Context) {
	tok, err := principal.Bearer(c.GetHeader("Authorization"))
	if err != nil {
		dropBody(c.Writer, c.Request)
		c.Header("WWW-Authenticate", `Bearer realm="switchboard"`)
		abort(c, http.StatusUnauthorized, "unauthenticated", "Send Authorization: Bearer <token>.")
		return
	}
	s.authenticate(c, tok)
}

func (s *server) authenticate(c *gin.Context, tok string) {
	p, err := s.cfg.Auth.Verify(c.Request.Context(), tok)
	if err != nil {
		// Never wait for the body of a request that will not be served.
		dropBody(c.Writer, c.Request)
	}
	if errors.Is(err, principal.ErrKeysUnavailable) {
		// Our side cannot check any token right now: the client's token may be fine.
		c.Header("Retry-After", "5")
		abort(c, http.StatusServiceUnavailable, "auth_unavailable", "Sign-in cannot be checked right now. Please retry shortly.")
		return
	}
	if err != nil {
		c.Header("WWW-Authenticate", `Bearer realm="switchboard", error="invalid_token"`)
		abort(c, http.StatusUnauthorized, "invalid_token", "Invalid token: "+principal.Reason(err)+".")
		return
	}
	c.Set(principalKey, p)
	c.Request = c.Request.WithContext(principal.NewContext(c.Request.Context(), p))
	c.Next()
}

// requireTurnAccess admits the bearer token or the turn-scoped token that events_url carries
// (a browser's EventSource cannot set headers). A turn token for another turn is rejected.
func (s *server) requireTurnAccess(c *gin.Context) {
	if c.GetHeader("Authorization") != "" || c.Query("token") == "" {
		s.requireBearer(c)
		return
	}
	p, err := s.cfg.TurnTokens.Verify(c.Query("token"), c.Param("id"))
	if err != nil {
		dropBody(c.Writer, c.Request)
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
