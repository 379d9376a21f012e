package telemetry

import (
	"fmt"
	"strconv"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Standard OpenTelemetry variables that choose the trace sampler, read by [SamplerFromEnv].
const (
	envSampler    = "OTEL_TRACES_SAMPLER"
	envSamplerArg = "OTEL_TRACES_SAMPLER_ARG"
)

// SamplerFromEnv resolves the sampler named by OTEL_TRACES_SAMPLER, with the ratio in
// OTEL_TRACES_SAMPLER_ARG (default 1) for the ratio samplers, through lookup (cmd passes
// [os.LookupEnv]). It returns nil when the variable is unset or empty, which keeps [Setup]'s
// default. Known names: always_on, always_off, traceidratio, parentbased_always_on,
// parentbased_always_off and parentbased_traceidratio.
//
// A sampler decides when a span starts: a turn it does not sample gets non-recording spans,
// which record no attributes or events, and the turn skips building what only they would
// carry. Sampling 1 turn in 10 is how a busy server keeps tracing cheap.
func SamplerFromEnv(lookup func(string) (string, bool)) (sdktrace.Sampler, error) {
	name, _ := lookup(envSampler)
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return nil, nil
	}
	ratio := func() (float64, error) {
		arg, _ := lookup(envSamplerArg)
		if arg = strings.TrimSpace(arg); arg == "" {
			return 1, nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			return 0, fmt.Errorf("%w: %s=%q is not a ratio from 0 to 1", ErrInvalidConfig, envSamplerArg, arg)
		}
		return r, nil
	}
	switch name {
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "traceidratio", "parentbased_traceidratio":
		r, err := ratio()
		if err != nil {
			return nil, err
		}
		if name == "traceidratio" {
			return sdktrace.TraceIDRatioBased(r), nil
		}
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(r)), nil
	default:
		return nil, fmt.Errorf("%w: %s=%q is not a sampler this build knows", ErrInvalidConfig, envSampler, name)
	}
}
