package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/internal/assembly"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/llm"
)

func validateCmd(args []string, stdout, stderr io.Writer, lookup env) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "config file: its orchestrator, models and flags are checked against the definitions; with a ccs.url (or SWITCHBOARD_CCS_URL) other than embedded, enrichers are not checked against the demo CCS")
	dir := fs.String("agents", defaultAgentsDir, "folder of Agent Definition YAML files (the built-in demo agents when ./agents is absent, as serve does)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: switchboard validate [--agents DIR] [--config FILE]\n\nChecks every Agent Definition in DIR and prints every problem with file:line, its cause first.\nWith the embedded demo CCS it also checks each tool's domain_type against what its fixture in\nDIR/fixtures (or the demo's own enricher) answers, and runs the answer templates over that data.\nIt warns about agents an unset feature flag leaves out, sub-agents no orchestrator lists, and\ntools whose enricher nothing answers. Exit status 1 when there is any problem (warnings and\nnotes do not count).")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("validate takes no arguments, got %q", fs.Args())
	}
	if err := checkAgentsFlag(*dir); err != nil {
		return err
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
	// The SWITCHBOARD_* overrides, as serve applies them (SWITCHBOARD_CCS_URL decides whether
	// the demo CCS must answer the enrichers), but not the secrets: validating definitions
	// must not need the model keys.
	if err := cfg.ApplyOverrides(lookup); err != nil {
		return err
	}
	if _, err := assembly.ChooseOrchestrator(set, cfg); err != nil {
		fmt.Fprintf(stdout, "%s: serve would refuse to start: %v\n", orchestratorSource(*cfgPath, lookup), err)
		return &exitError{code: 1, msg: fmt.Sprintf("1 problem(s) in %s", *dir)}
	}
	inConfig := modelProblems(cfg, *cfgPath)
	if problems := append(inConfig, unknownModels(set, cfg)...); len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(stdout, p)
		}
		where := *dir
		switch {
		case len(inConfig) == len(problems):
			where = *cfgPath
		case len(inConfig) > 0:
			where += " and " + *cfgPath
		}
		return &exitError{code: 1, msg: fmt.Sprintf("%d problem(s) in %s", len(problems), where)}
	}
	name := *dir
	if builtIn {
		name = "built-in demo agents" // ./agents does not exist: naming it would say otherwise
	}
	// "OK" is said last, once nothing below has found a problem: a verdict printed before the
	// problems that overturn it reads as a pass.
	ok := func() error {
		fmt.Fprintf(stdout, "%s: %d definitions OK\n", name, len(set.All()))
		return nil
	}
	for _, line := range unsetFlags(set, cfg, *cfgPath) {
		fmt.Fprintln(stdout, line)
	}
	if u := cfg.CCS.URL; u != "" && u != "embedded" {
		return ok() // a real CCS answers the enrichers
	}
	shown := folder // how problems name the folder: as the definitions' files are named
	if !builtIn {
		fsys = os.DirFS(folder)
		folder = "."
	}
	fixturesDir := path.Join(folder, ccsdemo.FixturesDir)
	fixtures, err := ccsdemo.LoadFixtures(fsys, fixturesDir)
	var fe *ccsdemo.FixtureError
	switch {
	case errors.As(err, &fe):
		// Named as the definitions' problems are, not relative to the agents folder.
		at := definitions.Source{File: joinShown(shown, builtIn, ccsdemo.FixturesDir, path.Base(fe.File)), Line: fe.Line}
		fmt.Fprintf(stdout, "%s: %v\n", at, fe.Err)
		return &exitError{code: 1, msg: fmt.Sprintf("1 problem(s) in %s", *dir)}
	case err != nil:
		return &exitError{code: 1, msg: err.Error()}
	}
	for _, w := range append(unlistedSubAgents(set), unansweredEnrichers(set, fixtures)...) {
		fmt.Fprintln(stdout, "warning:", w)
	}
	mismatches := domainMismatches(set, fixtures, fixtureDomainType(fsys, fixturesDir, func(name string) string {
		return joinShown(shown, builtIn, ccsdemo.FixturesDir, name)
	}))
	for _, p := range mismatches {
		fmt.Fprintln(stdout, p)
	}
	answers := checkAnswers(set, fixtures)
	for _, p := range answers {
		fmt.Fprintln(stdout, p)
	}
	switch {
	case len(mismatches) > 0:
		return &exitError{code: 1, msg: fmt.Sprintf("%d problem(s) in %s", len(mismatches)+len(answers), *dir)}
	case len(answers) > 0:
		return &exitError{code: 1, msg: fmt.Sprintf("%d answer template(s) in %s fail on the demo data", len(answers), *dir)}
	}
	return ok()
}

// orchestratorSource names where the choice of orchestrator came from, for a problem with it.
func orchestratorSource(cfgPath string, lookup env) string {
	switch v, ok := lookup("SWITCHBOARD_ORCHESTRATOR"); {
	case ok && v != "":
		return "SWITCHBOARD_ORCHESTRATOR"
	case cfgPath != "":
		return cfgPath
	}
	return "the agents folder (no --config)"
}

// joinShown names a file under the agents folder the way the definitions' problems name
// theirs: joined to the folder as given (filepath for a folder on disk, path for the built-in
// agents).
func joinShown(folder string, builtIn bool, elem ...string) string {
	if builtIn {
		return path.Join(append([]string{folder}, elem...)...)
	}
	return filepath.Join(append([]string{folder}, elem...)...)
}

// fixtureDomainType returns a function that locates the domain_type of the fixture of an
// enricher ("file:line", or just the file when the line cannot be found). show names a
// fixture file for the user.
func fixtureDomainType(fsys fs.FS, dir string, show func(name string) string) func(enricher string) string {
	return func(enricher string) string {
		name := enricher + ".json"
		// The file was just read whole by LoadFixtures; should it be gone now, the problem
		// still names it, without a line.
		data, _ := fs.ReadFile(fsys, path.Join(dir, name))
		return definitions.Source{File: show(name), Line: jsonKeyLine(data, "domain_type")}.String()
	}
}

// domainMismatches says, for each tool the embedded demo CCS answers with another domain type
// (see [assembly.DomainMismatches]), what to write where. A fixture's mismatch is a problem at
// the fixture, which fixtureAt locates ("file:line") for an enricher id.
func domainMismatches(set *definitions.Set, fixtures map[string]ccsdemo.Fixture, fixtureAt func(enricher string) string) []string {
	var out []string
	for _, m := range assembly.DomainMismatches(set, fixtures) {
		t := m.Tool
		if !m.Fixture {
			out = append(out, fmt.Sprintf("%s: tool %s: domain_type %q is not %q, the domain type the demo CCS answers enricher %s with, so the agent would reject every answer: write domain_type: %s",
				m.Agent.Source.File, t.Name, t.DomainType, m.Served, t.Enricher, m.Served))
			continue
		}
		out = append(out, fmt.Sprintf("%s: domain_type %q is not the domain_type %q of tool %s (%s), so the agent would reject every answer of this fixture: write \"domain_type\": %q here, or domain_type: %s in the tool",
			fixtureAt(t.Enricher), m.Served, t.DomainType, t.Name, m.Agent.Source.File, t.DomainType, m.Served))
	}
	return out
}

// jsonKeyLine returns the 1-based line of key in the top-level JSON object data, or 0 when
// data is not such an object or lacks the key.
func jsonKeyLine(data []byte, key string) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0
		}
		if k, _ := tok.(string); k == key {
			return 1 + bytes.Count(data[:dec.InputOffset()], []byte("\n"))
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 0
		}
	}
	return 0
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

// modelProblems checks the config's models: as serve does when it builds them (provider,
// model, base_url, limits), but takes every key as given: validating must not need the keys,
// and serve names a missing one when it starts. Each problem names the config file.
func modelProblems(cfg config.Config, cfgPath string) []string {
	var out []string
	for _, alias := range slices.Sorted(maps.Keys(cfg.Models)) {
		m := cfg.Models[alias]
		m.APIKey = "given"
		err := m.Validate(alias)
		if err == nil {
			continue
		}
		errs := []error{err}
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			errs = joined.Unwrap()
		}
		for _, e := range errs {
			out = append(out, fmt.Sprintf("%s: %v", cfgPath, e))
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

// unsetFlags tells about the sub-agents whose enabled: names a flag the config does not set:
// serve leaves them out (an unset flag is off), which is right while a flag is meant to be off
// and easy to miss when it is misspelt. With a config it is a warning for each; without one, a
// note, since the config that serve will be given is not known here.
func unsetFlags(set *definitions.Set, cfg config.Config, cfgPath string) []string {
	var out []string
	for _, d := range set.All() {
		flag := d.Enabled.UnsetIn(cfg.Flags)
		if d.Kind != definitions.KindSubAgent || flag == "" {
			continue
		}
		if cfgPath == "" {
			out = append(out, fmt.Sprintf("note: %s: agent %s is enabled only when flag %s is true in the config's flags; without --config no flag is set, so serve would leave it out: pass --config to check it against yours",
				d.Source.File, d.ID, flag))
			continue
		}
		out = append(out, fmt.Sprintf("warning: %s: agent %s is disabled: flag %s is not set in the config's flags (%s); set %s: true under flags: to turn the agent on, or %s: false to keep it off",
			d.Source.File, d.ID, flag, cfgPath, flag, flag))
	}
	return out
}
