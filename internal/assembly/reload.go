package assembly

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/definitions"
)

// Reload reads the agents folder again and, when the whole new set is valid and binds, makes
// new turns use it; running turns finish on the set they started with, and the A2A agent card
// follows. With the embedded demo CCS, the fixtures beside the definitions are read again too.
// A broken set or fixture changes nothing: the last good set stays, each problem is logged with
// its file and line, and /readyz shows the failure until a reload succeeds.
func (a *App) Reload(ctx context.Context) error {
	a.reloadMu.Lock() // a SIGHUP and a file event at once must not interleave their swaps
	defer a.reloadMu.Unlock()
	a.readStamp = folderStamp(a.binder.opts)
	b, err := a.binder.load()
	var fixtures map[string]ccsdemo.Fixture
	if err == nil && a.Demo != nil {
		fixtures, err = loadFixtures(a.binder.opts)
	}
	if err == nil {
		err = a.Service.Rebind(b.orc, b.forbidden)
	}
	if err != nil {
		a.reloads.failed(err)
		a.reloadCount.Add(ctx, 1, metric.WithAttributes(attribute.String("result", "error")))
		var le *definitions.LoadError
		if errors.As(err, &le) {
			for _, p := range le.Problems {
				a.log.ErrorContext(ctx, "agent definitions not reloaded", "problem", p.String())
			}
		} else {
			a.log.ErrorContext(ctx, "agent definitions not reloaded", "err", err)
		}
		a.log.WarnContext(ctx, "keeping the last good agent definitions", "agents", len(a.current.Load().defs.All()))
		auditor{a}.reloaded(ctx, len(a.current.Load().defs.All()), err)
		return err
	}
	a.current.Store(b)
	if a.Demo != nil {
		a.Demo.SetFixtures(fixtures)
		a.warnDomainMismatches(ctx, b.defs, fixtures)
	}
	a.reloads.succeeded(len(b.defs.All()))
	a.reloadCount.Add(ctx, 1, metric.WithAttributes(attribute.String("result", "ok")))
	a.log.InfoContext(ctx, "agent definitions reloaded", "agents", len(b.defs.All()), "orchestrator", b.orcDef.ID)
	auditor{a}.reloaded(ctx, len(b.defs.All()), nil)
	return nil
}

// reloadDebounce gathers the burst of events one save makes (editors write a temporary file,
// rename it, change its mode) into one reload.
const reloadDebounce = 300 * time.Millisecond

// Watch reloads the agents folder whenever a file in it changes, until ctx ends. It returns
// at once; watching an embedded folder is not possible and returns an error.
func (a *App) Watch(ctx context.Context) error {
	if a.binder.opts.AgentsFS != nil {
		return errors.New("agents are embedded in the binary: nothing to watch")
	}
	if a.closing.Err() != nil {
		// Close has run (or is running) its closers: a watcher started now would outlive it.
		return errors.New("the service is shutting down: nothing to watch")
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	dir := a.binder.opts.Agents
	if err := w.Add(dir); err != nil {
		_ = w.Close()
		return err
	}
	// Watching is not recursive: the fixtures folder is watched too, from when it appears.
	fixturesDir := filepath.Join(dir, ccsdemo.FixturesDir)
	_ = w.Add(fixturesDir)
	// A file saved between the last read of the folder and now made no event: serve builds
	// the rest of the service, for seconds, between loading the agents and watching them.
	var fire <-chan time.Time
	a.reloadMu.Lock()
	changed := folderStamp(a.binder.opts) != a.readStamp
	a.reloadMu.Unlock()
	if changed {
		fire = time.After(reloadDebounce)
	}
	done := make(chan struct{})
	a.closers = append(a.closers, func() error {
		err := w.Close()
		<-done
		return err
	})
	go func() {
		defer close(done)
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Name == fixturesDir && ev.Has(fsnotify.Create) {
					_ = w.Add(fixturesDir)
				}
				if relevant(ev, fixturesDir) {
					fire = time.After(reloadDebounce)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				a.log.WarnContext(ctx, "watching agent definitions", "dir", dir, "err", err)
			case <-fire:
				fire = nil
				_ = a.Reload(ctx) // logged and shown in /readyz
			case <-ctx.Done():
				return
			}
		}
	}()
	return nil
}

// folderStamp sums up the files whose change makes the watcher reload ([relevant]): the name,
// size and modification time of each. Two stamps differ when such a file was saved, added or
// removed between them. An embedded folder, which cannot change, has the empty stamp.
func folderStamp(o Input) string {
	if o.AgentsFS != nil {
		return ""
	}
	fixturesDir := filepath.Join(o.Agents, ccsdemo.FixturesDir)
	var b strings.Builder
	for _, dir := range []string{o.Agents, fixturesDir} {
		entries, _ := os.ReadDir(dir) // a folder that cannot be read stamps as empty
		for _, e := range entries {
			name := filepath.Join(dir, e.Name())
			if e.IsDir() || !relevant(fsnotify.Event{Name: name, Op: fsnotify.Write}, fixturesDir) {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue // removed since ReadDir: the next stamp differs anyway
			}
			fmt.Fprintf(&b, "%s\x00%d\x00%d\n", name, info.Size(), info.ModTime().UnixNano())
		}
	}
	return b.String()
}

// relevant reports whether ev may change the definitions or the demo CCS's fixtures: a YAML
// file, a JSON file in fixturesDir or that folder itself, other than a dot-file (editors' swap
// and backup files), written, created, removed or renamed.
func relevant(ev fsnotify.Event, fixturesDir string) bool {
	name := filepath.Base(ev.Name)
	if strings.HasPrefix(name, ".") || ev.Op == fsnotify.Chmod {
		return false
	}
	if ev.Name == fixturesDir {
		return true
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return true
	case ".json":
		return filepath.Dir(ev.Name) == fixturesDir
	}
	return false
}

// reloadStatus is what /readyz says about the definitions.
type reloadStatus struct {
	mu       sync.Mutex
	agents   int
	loadedAt time.Time
	last     string // "ok" or "error"
	lastAt   time.Time
	problems []string
}

func (r *reloadStatus) succeeded(agents int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now().UTC()
	r.agents, r.loadedAt, r.last, r.lastAt, r.problems = agents, now, "ok", now, nil
}

func (r *reloadStatus) failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last, r.lastAt = "error", time.Now().UTC()
	var le *definitions.LoadError
	if errors.As(err, &le) {
		r.problems = make([]string, len(le.Problems))
		for i, p := range le.Problems {
			r.problems[i] = p.String()
		}
		return
	}
	r.problems = []string{err.Error()}
}

func (r *reloadStatus) status() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := map[string]any{"agents": r.agents, "loaded_at": r.loadedAt}
	if r.last != "" {
		s["last_reload"] = map[string]any{"result": r.last, "at": r.lastAt}
	}
	if len(r.problems) > 0 {
		s["problems"] = r.problems
	}
	return s
}

func newReloadCounter(mp metric.MeterProvider) (metric.Int64Counter, error) {
	return mp.Meter("github.com/switchboard-ai/switchboard").Int64Counter(
		"switchboard_definitions_reloads_total",
		metric.WithDescription("Reloads of the agent definitions folder, by result (ok, error)."))
}
