package definitions

import (
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
	return load(os.DirFS(dir), ".", func(name string) string { return filepath.Join(dir, name) })
}

// LoadFS is [Load] over a file system, such as an embedded one. Problems name files as
// dir/name within fsys.
func LoadFS(fsys fs.FS, dir string) (*Set, error) {
	return load(fsys, dir, func(name string) string { return path.Join(dir, name) })
}

func load(fsys fs.FS, dir string, display func(name string) string) (*Set, error) {
	dirEntries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("definitions: read %s: %w", display(""), err)
	}
	var entries []entry
	var problems []Problem
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
			problems = append(problems, validate(def, lay)...)
			entries = append(entries, entry{def: def, lay: lay})
		}
	}
	if len(entries) == 0 && len(problems) == 0 {
		problems = append(problems, Problem{
			Source:  Source{File: display("")},
			Message: "no agent definitions (.yaml or .yml files) found",
		})
	}
	set, more := bind(entries)
	return finish(set, append(problems, more...))
}

func isYAML(name string) bool {
	return slices.Contains([]string{".yaml", ".yml"}, strings.ToLower(path.Ext(name)))
}
