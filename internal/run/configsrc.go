package run

import (
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/vxrun/vx/internal/config"
)

// configSources are the files of the workspace the configuration was made
// from (config.Config.Sources), slash-separated from the root: a change to
// one may change every task, so vx watch plans again and --affected and
// [ref] filters select every project. Sources outside the root (an npm
// preset in node_modules is inside; a file in the home directory is not)
// are not seen by either: git and the watcher see only the workspace.
type configSources struct {
	files map[string]bool     // exact paths
	dirs  map[string][]string // directories whose listing counts: the prefixes of the direct entries that do
}

// newConfigSources returns the sources of cfg under root; nil when there
// are none.
func newConfigSources(root string, cfg *config.Config) *configSources {
	if cfg == nil || len(cfg.Sources) == 0 {
		return nil
	}
	cs := &configSources{files: map[string]bool{}, dirs: map[string][]string{}}
	for _, s := range cfg.Sources {
		rel, err := filepath.Rel(root, s.Path)
		if err != nil || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if s.Dir {
			cs.dirs[rel] = append(cs.dirs[rel], strings.ToLower(s.Prefix))
		} else {
			cs.files[rel] = true
		}
	}
	return cs
}

// has reports whether the change of the file rel (slash-separated, from
// the root) is one of the configuration's: the file itself, or a name in
// a directory whose listing it read.
func (cs *configSources) has(rel string) bool {
	if cs == nil {
		return false
	}
	if cs.files[rel] {
		return true
	}
	base := strings.ToLower(path.Base(rel))
	for _, prefix := range cs.dirs[path.Dir(rel)] {
		if strings.HasPrefix(base, prefix) {
			return true
		}
	}
	return false
}

// paths returns what to watch for the sources, sorted: the files, and the
// listed directories.
func (cs *configSources) paths() []string {
	if cs == nil {
		return nil
	}
	var out []string
	for f := range cs.files {
		out = append(out, f)
	}
	for d := range cs.dirs {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// equal reports whether two sets of sources are the same.
func (cs *configSources) equal(o *configSources) bool {
	if cs == nil || o == nil {
		return cs.empty() && o.empty()
	}
	if !mapsEqual(cs.files, o.files) || len(cs.dirs) != len(o.dirs) {
		return false
	}
	for d, ps := range cs.dirs {
		if !slices.Equal(ps, o.dirs[d]) {
			return false
		}
	}
	return true
}

func (cs *configSources) empty() bool { return cs == nil || len(cs.files)+len(cs.dirs) == 0 }

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
