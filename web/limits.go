package web

import (
	"github.com/gin-gonic/gin"
	"github.com/switchboard-ai/switchboard/internal/httpkit"
)

// openStream counts a stream for the request's principal; over a limit it answers 429 (and
// reports it) and returns nil.
func (s *server) openStream(c *gin.Context, turnID string) *httpkit.StreamSlot {
	slot, err := s.cfg.Streams.Open(principalOf(c), turnID)
	if err != nil {
		s.abortErr(c, err)
		return nil
	}
	return slot
}
