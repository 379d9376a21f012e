package stream_test

import (
	"testing"

	"github.com/switchboard-ai/switchboard/stream"
	"github.com/switchboard-ai/switchboard/stream/streamtest"
)

func TestMemoryLogStore(t *testing.T) {
	streamtest.LogStoreSuite(t, func() stream.LogStore { return stream.NewMemoryLogStore() })
}
