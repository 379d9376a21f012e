package audit_test

import (
	"testing"

	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/internal/audit/audittest"
)

func TestMemory(t *testing.T) {
	audittest.Run(t, func(*testing.T) audittest.Store { return audit.NewMemory() })
}
