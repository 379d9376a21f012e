package evals

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// ServiceTarget runs turns through the turn service of this process: the real turn loop,
// sub-agent runtimes and stream guard, without HTTP.
type ServiceTarget struct {
	svc    *orchestrator.Service
	hub    *stream.Hub
	faults FaultInjector
}

var _ Target = (*ServiceTarget)(nil)

// NewServiceTarget returns a target over svc, reading each turn's events from hub (the hub
// svc publishes to). faults injects the cases' faults, typically a [DemoInjector] over the
// embedded demo CCS; nil makes cases with faults fail with [ErrNoFaultInjection].
func NewServiceTarget(svc *orchestrator.Service, hub *stream.Hub, faults FaultInjector) *ServiceTarget {
	return &ServiceTarget{svc: svc, hub: hub, faults: faults}
}

// Turn starts the turn, follows its stream to turn.completed and reads its routing record.
func (t *ServiceTarget) Turn(ctx context.Context, in TurnInput) (TurnOutput, error) {
	if t.svc == nil || t.hub == nil {
		return TurnOutput{}, fmt.Errorf("%w: service target needs a service and a hub", ErrConfig)
	}
	p := principal.Principal(in.User)
	start := time.Now()
	rec, _, err := t.svc.Start(ctx, orchestrator.StartRequest{Principal: p, EpisodeID: in.EpisodeID, Message: in.Message})
	if err != nil {
		return TurnOutput{}, fmt.Errorf("%w: start turn: %w", ErrTarget, err)
	}
	out := TurnOutput{TurnID: rec.ID, EpisodeID: rec.EpisodeID}
	completed := false
	for r, err := range t.hub.Follow(ctx, rec.ID, 0) {
		if err != nil {
			return out, fmt.Errorf("%w: follow turn %s: %w", ErrTarget, rec.ID, err)
		}
		name, data, err := stream.Marshal(r.Event)
		if err != nil {
			return out, fmt.Errorf("%w: %w", ErrTarget, err)
		}
		done, err := out.absorb(Event{ID: r.ID, Name: name, Data: data})
		if err != nil {
			return out, err
		}
		completed = completed || done
	}
	out.Latency = time.Since(start)
	if !completed {
		return out, fmt.Errorf("%w: turn %s: stream ended without turn.completed", ErrTarget, rec.ID)
	}
	final, err := t.svc.Turn(ctx, p, rec.ID)
	if err != nil {
		return out, fmt.Errorf("%w: read turn %s: %w", ErrTarget, rec.ID, err)
	}
	out.Decision, out.Stored = final.Decision, final.Reply
	return out, nil
}

// InjectFaults passes faults to the injector given to [NewServiceTarget].
func (t *ServiceTarget) InjectFaults(ctx context.Context, user string, faults []AgentFault) error {
	if t.faults == nil {
		return ErrNoFaultInjection
	}
	return t.faults.InjectFaults(ctx, user, faults)
}

// ClearFaults clears the injector's faults; without an injector there is nothing to clear.
func (t *ServiceTarget) ClearFaults(ctx context.Context, user string) error {
	if t.faults == nil {
		return nil
	}
	return t.faults.ClearFaults(ctx, user)
}
