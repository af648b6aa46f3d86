package run

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vxrun/vx/workspace"
)

func selectProjects(ws *workspace.Workspace, sel Selection) ([]*workspace.Project, error) {
	if len(sel.Filters) == 0 {
		if ws.Current != nil && !ws.Current.IsRoot {
			return []*workspace.Project{ws.Current}, nil
		}
		if len(ws.Projects) == 1 {
			return ws.Projects, nil
		}
		var out []*workspace.Project
		for _, p := range ws.Projects {
			if !p.IsRoot {
				out = append(out, p)
			}
		}
		return out, nil
	}
	picked := make(map[*workspace.Project]bool)
	for _, f := range sel.Filters {
		n := 0
		for _, p := range ws.Projects {
			if filterMatches(f, p, sel.Dir) {
				picked[p] = true
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("--filter %q matches no project; run vx ls to see the projects", f)
		}
	}
	var out []*workspace.Project
	for _, p := range ws.Projects {
		if picked[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// filterMatches reports whether a --filter value selects p. A value
// starting with "." is a directory relative to dir; any other is a project
// name or a glob on names, where * matches any run of characters (slashes
// of scoped names too) and ? one character.
func filterMatches(filter string, p *workspace.Project, dir string) bool {
	if filter == "." || filter == ".." || strings.HasPrefix(filter, "./") || strings.HasPrefix(filter, "../") ||
		strings.HasPrefix(filter, `.\`) || strings.HasPrefix(filter, `..\`) {
		target := filepath.Clean(filepath.Join(dir, filter))
		rel, err := filepath.Rel(target, p.Dir)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	return globMatch(filter, p.Name)
}

// globMatch matches name against a pattern of literals, * (any run of
// characters) and ? (one character).
func globMatch(pattern, name string) bool {
	px, nx := 0, 0
	nextPx, nextNx := -1, -1
	for px < len(pattern) || nx < len(name) {
		if px < len(pattern) {
			switch c := pattern[px]; c {
			case '*':
				nextPx, nextNx = px, nx+1
				px++
				continue
			case '?':
				if nx < len(name) {
					px++
					nx++
					continue
				}
			default:
				if nx < len(name) && name[nx] == c {
					px++
					nx++
					continue
				}
			}
		}
		if nextNx > 0 && nextNx <= len(name) {
			px, nx = nextPx, nextNx
			continue
		}
		return false
	}
	return true
}
