package evals

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
)

var errNoEnrichers = errors.New("sub-agent reads no enrichers, so no fault can be injected for it")

// DemoFault is how the embedded demo CCS injects kind into one enricher.
func DemoFault(kind FaultKind) (ccsdemo.Fault, error) {
	switch kind {
	case FaultError:
		return ccsdemo.Fault{Status: "error"}, nil
	case FaultPartial:
		return ccsdemo.Fault{Status: "partial"}, nil
	case FaultPrincipalMismatch:
		return ccsdemo.Fault{WrongPrincipal: true}, nil
	case FaultTimeout:
		// Never answering makes the sub-agent's own timeout fire, whatever its value.
		return ccsdemo.Fault{Hang: true}, nil
	}
	return ccsdemo.Fault{}, fmt.Errorf("%w: unknown fault kind %q", ErrConfig, kind)
}

// DemoFaults maps sub-agent faults to the demo CCS's faults by enricher id, the body of
// PUT /v1/dev/ccs-faults.
func DemoFaults(faults []AgentFault) (map[string]ccsdemo.Fault, error) {
	out := map[string]ccsdemo.Fault{}
	for _, f := range faults {
		if len(f.Enrichers) == 0 {
			return nil, fmt.Errorf("%w: %s: %w", ErrNoFaultInjection, f.Agent, errNoEnrichers)
		}
		df, err := DemoFault(f.Kind)
		if err != nil {
			return nil, err
		}
		for _, e := range f.Enrichers {
			out[e] = df
		}
	}
	return out, nil
}

// DemoInjector injects faults into an embedded demo CCS in this process.
type DemoInjector struct {
	demo *ccsdemo.Server
}

var _ FaultInjector = (*DemoInjector)(nil)

// NewDemoInjector returns an injector over demo.
func NewDemoInjector(demo *ccsdemo.Server) *DemoInjector { return &DemoInjector{demo: demo} }

// InjectFaults clears user's faults and injects faults into every enricher they name, for
// user's calls only.
func (d *DemoInjector) InjectFaults(_ context.Context, user string, faults []AgentFault) error {
	if d.demo == nil {
		return ErrNoFaultInjection
	}
	m, err := DemoFaults(faults)
	if err != nil {
		return err
	}
	d.demo.ClearFor(user)
	for id, f := range m {
		d.demo.InjectFor(user, id, f)
	}
	return nil
}

// ClearFaults removes user's faults from the demo.
func (d *DemoInjector) ClearFaults(_ context.Context, user string) error {
	if d.demo == nil {
		return nil
	}
	d.demo.ClearFor(user)
	return nil
}
