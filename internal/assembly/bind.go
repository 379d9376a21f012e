package assembly

import (
	"context"
	"fmt"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/internal/breaker"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/llm"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/subagents"
)

// binder turns an agents folder into a bound orchestrator. It keeps what does not change when
// the folder does (models, the CCS client, the payload registry), so a reload rebuilds only the
// definitions' part.
type binder struct {
	cfg        config.Config
	opts       Input
	models     func(alias string) (llmModel, error)
	enricher   subagents.Enricher
	breakers   *breaker.Set
	registry   *ccs.Registry
	check      ccs.CheckOptions
	credential func(context.Context, principal.Principal) (string, error)
	// onSuppressed is told of each CCS envelope a sub-agent suppresses, for the audit log.
	onSuppressed func(context.Context, subagents.Suppression)
}

// boundAgents is one loaded agents folder, bound: what turns start with.
type boundAgents struct {
	defs      *definitions.Set
	orcDef    *definitions.Definition
	orc       *orchestrator.Orchestrator
	forbidden []string // enricher ids, which the stream guard keeps from clients
}

// load reads the agents folder and binds it. It changes nothing: the caller decides whether the
// result replaces the current set.
func (b *binder) load() (*boundAgents, error) {
	var (
		defs *definitions.Set
		err  error
	)
	if b.opts.AgentsFS != nil {
		defs, err = definitions.LoadFS(b.opts.AgentsFS, b.opts.Agents)
	} else {
		defs, err = definitions.Load(b.opts.Agents)
	}
	if err != nil {
		return nil, err
	}
	return b.bind(defs)
}

func (b *binder) bind(defs *definitions.Set) (*boundAgents, error) {
	tel := ask.Telemetry{Tracers: b.opts.TracerProvider, Meters: b.opts.MeterProvider, Logger: b.opts.Logger}
	orcDef, err := ChooseOrchestrator(defs, b.cfg)
	if err != nil {
		return nil, err
	}
	subs := defs.SubAgents(orcDef)
	b.warnUnsetFlags(subs)
	runtimes := make(map[string]ask.Agent, len(subs))
	var forbidden []string
	for _, d := range subs {
		if d.Remote() {
			rt, err := subagents.NewRemote(subagents.RemoteConfig{Definition: d, Credential: b.credential},
				subagents.WithTelemetry(tel))
			if err != nil {
				return nil, err
			}
			runtimes[d.ID] = breaker.NewAgent(b.breakers, d.ID, rt)
			continue
		}
		m, err := b.models(modelAlias(d))
		if err != nil {
			return nil, fmt.Errorf("sub-agent %s: %w", d.ID, err)
		}
		rt, err := subagents.New(subagents.Config{Definition: d, Model: m, CCS: b.enricher, Registry: b.registry, Check: b.check},
			b.subOptions(tel)...)
		if err != nil {
			return nil, err
		}
		runtimes[d.ID] = rt
		for _, t := range d.Tools {
			forbidden = append(forbidden, t.Enricher)
		}
	}
	orcModel, err := b.models(modelAlias(orcDef))
	if err != nil {
		return nil, fmt.Errorf("orchestrator %s: %w", orcDef.ID, err)
	}
	fewShot := b.cfg.Prompts.FewShot == nil || *b.cfg.Prompts.FewShot
	orc, err := orchestrator.New(orchestrator.Config{
		Definition: orcDef, SubAgents: subs, Runtimes: runtimes, Model: orcModel,
		Flags: func(name string) bool { return b.cfg.Flags[name] },
	}, orchestrator.WithFewShot(fewShot), orchestrator.WithTelemetry(tel))
	if err != nil {
		return nil, err
	}
	if p, ok := orcModel.(llm.Preparer); ok {
		p.Prepare(orc.SystemPrompt(), orc.Tools()) // the offline model reads the agents' texts now, not on a turn
	}
	return &boundAgents{defs: defs, orcDef: orcDef, orc: orc, forbidden: forbidden}, nil
}

// warnUnsetFlags logs, once per load, each sub-agent left out because its enabled: names a
// flag the config's flags: does not define. An unset flag is off, which keeps an agent dark
// until its flag is turned on; but a misspelt flag does the same, and without this line the
// agent would just be missing from the card and the routing.
func (b *binder) warnUnsetFlags(subs []*definitions.Definition) {
	for _, d := range subs {
		if flag := d.Enabled.UnsetIn(b.cfg.Flags); flag != "" {
			b.opts.Logger.Warn(fmt.Sprintf("agent %s is disabled: flag %s is not set in the config's flags", d.ID, flag),
				"agent", d.ID, "flag", flag)
		}
	}
}

// subOptions are the options of a sub-agent's runtime: telemetry, the audit log and, when
// Input gives one, the clock.
func (b *binder) subOptions(tel ask.Telemetry) []subagents.Option {
	opts := []subagents.Option{subagents.WithTelemetry(tel), subagents.WithOnSuppressed(b.onSuppressed)}
	if b.opts.Clock != nil {
		opts = append(opts, subagents.WithClock(b.opts.Clock))
	}
	return opts
}
