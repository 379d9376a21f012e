package telemetry

import (
	"errors"
	"testing"
)

func TestSamplerFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    string // the sampler's Description; "" for none
		wantErr bool
	}{
		{name: "unset keeps the default", env: nil, want: ""},
		{name: "always_on", env: map[string]string{envSampler: "always_on"}, want: "AlwaysOnSampler"},
		{name: "always_off", env: map[string]string{envSampler: "ALWAYS_OFF"}, want: "AlwaysOffSampler"},
		{name: "ratio", env: map[string]string{envSampler: "traceidratio", envSamplerArg: "0.25"}, want: "TraceIDRatioBased{0.25}"},
		{name: "ratio defaults to 1", env: map[string]string{envSampler: "traceidratio"}, want: "TraceIDRatioBased{1}"},
		{name: "parent based ratio", env: map[string]string{envSampler: "parentbased_traceidratio", envSamplerArg: "0.1"},
			want: "ParentBased{root:TraceIDRatioBased{0.1},remoteParentSampled:AlwaysOnSampler,remoteParentNotSampled:AlwaysOffSampler,localParentSampled:AlwaysOnSampler,localParentNotSampled:AlwaysOffSampler}"},
		{name: "bad ratio", env: map[string]string{envSampler: "traceidratio", envSamplerArg: "2"}, wantErr: true},
		{name: "ratio not a number", env: map[string]string{envSampler: "traceidratio", envSamplerArg: "half"}, wantErr: true},
		{name: "unknown", env: map[string]string{envSampler: "jaeger_remote"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := SamplerFromEnv(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if tc.wantErr {
				if !errors.Is(err, ErrInvalidConfig) {
					t.Fatalf("SamplerFromEnv() = %v, %v, want an ErrInvalidConfig", s, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("SamplerFromEnv() = %v", err)
			}
			got := ""
			if s != nil {
				got = s.Description()
			}
			if got != tc.want {
				t.Errorf("SamplerFromEnv() = %q, want %q", got, tc.want)
			}
		})
	}
}
