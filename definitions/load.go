package definitions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Load reads every .yaml and .yml file directly inside dir (subdirectories and dot-files are
// skipped), one definition per file, and returns the bound [Set]. When any definition is
// wrong it returns a [*LoadError] listing every problem with its file and line; it matches
// [ErrInvalid]. A directory that cannot be read is an ordinary wrapped error.
func Load(dir string) (*Set, error) {
	// os.DirFS would call a file "." and an empty name an "empty root": say what is wrong.
	if dir == "" {
		return nil, errors.New("definitions: no agents folder named")
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("definitions: %s is a file, not a folder of agent definitions", dir)
	}
	return load(os.DirFS(dir), ".", func(name string) string { return filepath.Join(dir, name) })
}

// LoadFS is [Load] over a file system, such as an embedded one. Problems name files as
// dir/name within fsys.
func LoadFS(fsys fs.FS, dir string) (*Set, error) {
	return load(fsys, dir, func(name string) string { return path.Join(dir, name) })
}

func load(fsys fs.FS, dir string, display func(name string) string) (*Set, error) {
	dirEntries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		// os.DirFS names the folder "." in its error: say which one.
		return nil, fmt.Errorf("definitions: there is no agents folder %s: %w", display(""), fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("definitions: read %s: %w", display(""), err)
	}
	var entries []entry
	var problems, missing []Problem
	var unread []string // files with no definition to offer, whose ids others may name
	for _, de := range dirEntries {
		name := de.Name()
		if de.IsDir() || strings.HasPrefix(name, ".") || !isYAML(name) {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("definitions: read %s: %w", display(name), err)
		}
		def, lay, more := parse(display(name), data)
		problems = append(problems, more...)
		if def != nil {
			more, miss := validate(def, lay)
			problems = append(problems, more...)
			missing = append(missing, miss...)
			entries = append(entries, entry{def: def, lay: lay})
		} else {
			unread = append(unread, name)
		}
	}
	if len(entries) == 0 && len(problems) == 0 {
		problems = append(problems, Problem{
			Source:  Source{File: display("")},
			Message: "no agent definitions (.yaml or .yml files) found",
		})
	}
	set, more := bind(entries)
	causes, knockOns := splitKnockOns(more, entries, set, unread, display)
	return finish(set, append(problems, causes...), missing, knockOns)
}

// splitKnockOns separates the unknown sub-agents that follow from a file that could not be
// read: fixing that file is the fix, so they are listed after it and say so.
func splitKnockOns(problems []Problem, entries []entry, set *Set, unread []string, display func(name string) string) (causes, knockOns []Problem) {
	if len(unread) == 0 {
		return problems, nil
	}
	missing := map[Source]string{} // where an orchestrator names an id no definition has
	for _, e := range entries {
		if e.def.Kind != KindOrchestrator {
			continue
		}
		for i, id := range e.def.SubAgents {
			if _, ok := set.Get(id); !ok {
				missing[e.lay.at(fmt.Sprintf("sub_agents[%d]", i))] = id
			}
		}
	}
	for _, p := range problems {
		id, ok := missing[p.Source]
		if !ok || !strings.HasPrefix(p.Message, "unknown sub-agent") {
			causes = append(causes, p)
			continue
		}
		cause := unread[0]
		for _, name := range unread {
			if strings.TrimSuffix(name, path.Ext(name)) == id {
				cause = name
			}
		}
		p.Message += fmt.Sprintf(": this follows from the problem in %s, which could not be read", display(cause))
		knockOns = append(knockOns, p)
	}
	return causes, knockOns
}

func isYAML(name string) bool {
	return slices.Contains([]string{".yaml", ".yml"}, strings.ToLower(path.Ext(name)))
}
