package telemetry

import "errors"

// ErrInvalidConfig is returned by [Setup] when its [Config] cannot be honoured, such as an
// unknown OTLP protocol or an endpoint that is not an http(s) URL.
var ErrInvalidConfig = errors.New("telemetry: invalid config")
