package evals

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"
)

// errNotRun marks the turns of a case after one that failed: without it, the episode they
// belong to does not exist.
var errNotRun = errors.New("not run: an earlier turn of the case failed")

// caseRun is one case and what happened to it.
type caseRun struct {
	dataset *Dataset
	c       Case
	turns   []turnRun
	err     error // the case as a whole could not run (fault injection)
}

type turnRun struct {
	out      TurnOutput
	err      error
	judge    int // 1-5, 0 when not judged
	judgeErr error
}

type runner struct {
	target      Target
	agents      []AgentInfo
	concurrency int
	turnTimeout time.Duration
	progress    *progress
}

// run runs every case of datasets. Cases without faults run concurrently; cases with faults
// run one at a time afterwards, each between injecting and clearing its faults. It returns
// the runs in dataset and case order, and an error only when the run as a whole must stop:
// ctx ended, or faults could not be cleared (every later case would be wrong).
func (r *runner) run(ctx context.Context, datasets []*Dataset) ([]*caseRun, error) {
	var all, plain, faulty []*caseRun
	for _, ds := range datasets {
		for _, c := range ds.Cases {
			cr := &caseRun{dataset: ds, c: c, turns: make([]turnRun, len(c.Turns))}
			all = append(all, cr)
			if len(c.Faults) > 0 {
				faulty = append(faulty, cr)
			} else {
				plain = append(plain, cr)
			}
		}
	}
	r.progress.start()
	defer r.progress.finish()

	var g errgroup.Group
	g.SetLimit(max(1, r.concurrency))
	for _, cr := range plain {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			r.runCase(ctx, cr)
			r.progress.step()
			return nil
		})
	}
	_ = g.Wait() // tasks keep their errors in their caseRun
	for _, cr := range faulty {
		if ctx.Err() != nil {
			break
		}
		if err := r.runFaulty(ctx, cr); err != nil {
			return all, err
		}
		r.progress.step()
	}
	if err := ctx.Err(); err != nil {
		return all, fmt.Errorf("evals: run stopped: %w", context.Cause(ctx))
	}
	return all, nil
}

func (r *runner) runFaulty(ctx context.Context, cr *caseRun) error {
	faults, err := r.agentFaults(cr.c.Faults)
	if err == nil {
		err = r.target.InjectFaults(ctx, cr.c.User, faults)
	}
	if err != nil {
		cr.err = fmt.Errorf("inject faults: %w", err)
		for i := range cr.turns {
			cr.turns[i].err = errNotRun
		}
	} else {
		r.runCase(ctx, cr)
	}
	// Clear even when ctx is done: a live server must not keep failing after the eval.
	clearCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := r.target.ClearFaults(clearCtx, cr.c.User); err != nil {
		return fmt.Errorf("evals: clear faults after case %s: %w", cr.c.Key(cr.dataset.Name), err)
	}
	return nil
}

// agentFaults attaches each faulty sub-agent's enrichers, in a stable order.
func (r *runner) agentFaults(faults map[string]FaultKind) ([]AgentFault, error) {
	ids := make([]string, 0, len(faults))
	for id := range faults {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]AgentFault, 0, len(ids))
	for _, id := range ids {
		i := slices.IndexFunc(r.agents, func(a AgentInfo) bool { return a.ID == id })
		if i < 0 {
			return nil, fmt.Errorf("%w: fault for unknown sub-agent %q", ErrConfig, id)
		}
		out = append(out, AgentFault{Agent: id, Kind: faults[id], Enrichers: slices.Clone(r.agents[i].Enrichers)})
	}
	return out, nil
}

// runCase runs the case's turns in order in one episode, stopping at the first turn the
// target fails to run.
func (r *runner) runCase(ctx context.Context, cr *caseRun) {
	episode := ""
	for i, t := range cr.c.Turns {
		out, err := r.turn(ctx, TurnInput{User: cr.c.User, EpisodeID: episode, Message: t.Message})
		cr.turns[i] = turnRun{out: out, err: err}
		if err != nil {
			for j := i + 1; j < len(cr.turns); j++ {
				cr.turns[j].err = errNotRun
			}
			return
		}
		if out.EpisodeID != "" {
			episode = out.EpisodeID
		}
	}
}

// turn runs one turn under its own deadline, turning a panicking target into an error.
func (r *runner) turn(ctx context.Context, in TurnInput) (out TurnOutput, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.turnTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: panic: %v", ErrTarget, p)
		}
	}()
	return r.target.Turn(ctx, in)
}
