package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/llm"
)

func validateCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "config file; with a ccs.url other than embedded, enrichers are not checked against the demo CCS")
	dir := fs.String("agents", defaultAgentsDir, "folder of Agent Definition YAML files (the built-in demo agents when ./agents is absent, as serve does)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: switchboard validate [--agents DIR] [--config FILE]\n\nChecks every Agent Definition in DIR and prints every problem with file:line, then warns about\ntools whose enricher neither the embedded demo CCS nor a fixture in DIR/fixtures answers.\nExit status 1 when there is any problem (warnings do not count).")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("validate takes no arguments, got %q", fs.Args())
	}
	folder, fsys, builtIn := agentsSource(*dir)
	var set *definitions.Set
	var err error
	if builtIn {
		fmt.Fprintln(stdout, "no ./agents folder: checking the built-in demo agents (as serve would use them)")
		set, err = definitions.LoadFS(fsys, folder)
	} else {
		set, err = definitions.Load(folder)
	}
	var le *definitions.LoadError
	switch {
	case errors.As(err, &le):
		for _, p := range le.Problems {
			fmt.Fprintln(stdout, p.String())
		}
		return &exitError{code: 1, msg: fmt.Sprintf("%d problem(s) in %s", len(le.Problems), *dir)}
	case err != nil:
		return withAgentsHint(err)
	}
	cfg, err := config.Load(*cfgPath) // the defaults without --config, as serve has
	if err != nil {
		return err
	}
	if problems := unknownModels(set, cfg); len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(stdout, p)
		}
		return &exitError{code: 1, msg: fmt.Sprintf("%d problem(s) in %s", len(problems), *dir)}
	}
	name := *dir
	if builtIn {
		name = "built-in demo agents" // ./agents does not exist: naming it would say otherwise
	}
	fmt.Fprintf(stdout, "%s: %d definitions OK\n", name, len(set.All()))
	if u := cfg.CCS.URL; u != "" && u != "embedded" {
		return nil // a real CCS answers the enrichers
	}
	if !builtIn {
		fsys = os.DirFS(folder)
		folder = "."
	}
	fixtures, err := ccsdemo.LoadFixtures(fsys, path.Join(folder, ccsdemo.FixturesDir))
	if err != nil {
		return &exitError{code: 1, msg: err.Error()}
	}
	for _, w := range append(unlistedSubAgents(set), unansweredEnrichers(set, fixtures)...) {
		fmt.Fprintln(stdout, "warning:", w)
	}
	if problems := checkAnswers(set, fixtures); len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(stdout, p)
		}
		return &exitError{code: 1, msg: fmt.Sprintf("%d answer template(s) in %s fail on the demo data", len(problems), *dir)}
	}
	return nil
}

// unlistedSubAgents lists the sub-agents that no orchestrator lists in its sub_agents:
// defined, but never asked, however well they would answer.
func unlistedSubAgents(set *definitions.Set) []string {
	listed := map[string]bool{}
	for _, o := range set.Orchestrators() {
		for _, d := range set.SubAgents(o) {
			listed[d.ID] = true
		}
	}
	var out []string
	for _, d := range set.All() {
		if d.Kind == definitions.KindSubAgent && !listed[d.ID] {
			out = append(out, fmt.Sprintf("%s: sub-agent %q is in no orchestrator's sub_agents: nothing will ask it", d.Source.File, d.ID))
		}
	}
	return out
}

// unansweredEnrichers lists the tools whose enricher the embedded demo CCS cannot answer: no
// demo enricher and no fixture. Such an agent says "unavailable" until a CCS is configured.
func unansweredEnrichers(set *definitions.Set, fixtures map[string]ccsdemo.Fixture) []string {
	var out []string
	for _, d := range set.All() {
		for _, t := range d.Tools {
			if !ccsdemo.Serves(t.Enricher, fixtures) {
				out = append(out, fmt.Sprintf("%s: tool %s: enricher %q has no fixture (%s/%s.json) and the demo CCS does not serve it: add one, or point ccs.url at a CCS that does",
					d.Source.File, t.Name, t.Enricher, ccsdemo.FixturesDir, t.Enricher))
			}
		}
	}
	return out
}

// unknownModels lists the definitions whose model alias the config does not define, which
// serve would refuse to start with.
func unknownModels(set *definitions.Set, cfg config.Config) []string {
	var out []string
	for _, d := range set.All() {
		if d.Remote() {
			continue // a remote agent brings its own model
		}
		alias := d.Model
		if alias == "" {
			alias = llm.DefaultAlias
		}
		if _, ok := cfg.Models[alias]; !ok {
			known := slices.Sorted(maps.Keys(cfg.Models))
			out = append(out, fmt.Sprintf("%s:%d: model %q is not a model alias of the config (known: %s); add it under models: or pass --config",
				d.Source.File, d.Source.Line, alias, strings.Join(known, ", ")))
		}
	}
	return out
}
