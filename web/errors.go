package web

import (
	"github.com/gin-gonic/gin"
	"github.com/switchboard-ai/switchboard/internal/httpkit"
)

func abort(c *gin.Context, status int, code, message string) {
	c.AbortWithStatusJSON(status, httpkit.ErrorResponse{Error: httpkit.ErrorBody{Code: code, Message: message}})
}

// abortErr maps a domain error to its HTTP status.
func (s *server) abortErr(c *gin.Context, err error) {
	httpkit.WriteTurnError(c.Writer, c.Request, err, s.log)
	c.Abort()
}
