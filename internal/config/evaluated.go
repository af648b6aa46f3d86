package config

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// This file decodes what a vx.config.ts (or .mts, .js, .mjs) exported,
// once evaluated and written as JSON: the same checks as vx.json, every
// one, with the problem located by its key path rather than its place in
// the JSON text (internal/jsconfig maps the path into the source).

// ValueError is a problem in an evaluated config: the same message as
// vx.json's, and where it is in the value.
type ValueError struct {
	// Path leads from the top of the value to the problem: keys (string)
	// and array indexes (int).
	Path []any
	// Key is set when the problem is the key at the end of Path (an
	// unknown key, an invalid task name), not its value.
	Key     bool
	Msg     string
	Suggest string
}

func (e *ValueError) Error() string {
	s := e.Msg
	if p := KeyPath(e.Path); p != "" {
		s = p + ": " + s
	}
	if e.Suggest != "" {
		s += "; " + e.Suggest
	}
	return s
}

// KeyPath writes path as JavaScript would reach it: tasks.build.dependsOn[0],
// tasks["web#build"].
func KeyPath(path []any) string {
	var b []byte
	for _, k := range path {
		switch k := k.(type) {
		case int:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(k), 10)
			b = append(b, ']')
		case string:
			if isIdentifier(k) {
				if len(b) > 0 {
					b = append(b, '.')
				}
				b = append(b, k...)
			} else {
				b = append(b, '[')
				b = strconv.AppendQuote(b, k)
				b = append(b, ']')
			}
		}
	}
	return string(b)
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// DecodeValue decodes the JSON of an evaluated config's default export
// (see [Parse] for vx.json). project is set for a project's own config:
// its tasks are named without a project ("build"), and "remoteCache" is
// the workspace's alone. path is set as the Config's Path; Origins is
// left for the caller, who knows the source.
func DecodeValue(path string, data []byte, project bool) (*Config, *ValueError) {
	root, serr := parseJSONC(data)
	if serr == nil && root == nil {
		return nil, &ValueError{Msg: "the default export is empty"}
	}
	if serr == nil {
		c, derr := decode(root, project)
		if derr == nil {
			c.Path = path
			return c, nil
		}
		serr = derr
	}
	p, key := pathTo(root, serr.off)
	return nil, &ValueError{Path: p, Key: key, Msg: serr.msg, Suggest: serr.hint}
}

// pathTo finds the key or value starting at off in the tree: its path,
// and whether it is a key. Every error of decode is at one or the other.
func pathTo(n *node, off int) ([]any, bool) {
	var path []any
	for n != nil && n.off != off {
		switch n.kind {
		case kindObject:
			// The member holding off is the last that starts before it.
			i := -1
			for j, m := range n.members {
				if m.keyOff <= off {
					i = j
				}
			}
			if i < 0 {
				return path, false
			}
			m := n.members[i]
			path = append(path, m.key)
			if m.keyOff == off {
				return path, true
			}
			n = m.val
		case kindArray:
			i := -1
			for j, e := range n.elems {
				if e.off <= off {
					i = j
				}
			}
			if i < 0 {
				return path, false
			}
			path = append(path, i)
			n = n.elems[i]
		default:
			return path, false
		}
	}
	return path, false
}

// origins returns where each task key of the parsed file is, in one pass
// over the file.
func origins(path string, data []byte, root *node) map[string]Origin {
	out := map[string]Origin{}
	if root == nil || root.kind != kindObject {
		return out
	}
	for _, m := range root.members {
		if m.key != "tasks" || m.val.kind != kindObject {
			continue
		}
		// The keys are in the order of the file: carry the line along.
		line, lineStart, at := 1, 0, 0
		if bytes.HasPrefix(data, bom) {
			lineStart = len(bom)
		}
		for _, t := range m.val.members {
			for ; at < t.keyOff; at++ {
				if data[at] == '\n' {
					line, lineStart = line+1, at+1
				}
			}
			out[t.key] = Origin{Path: path, Line: line, Col: utf8.RuneCount(data[lineStart:t.keyOff]) + 1}
		}
	}
	return out
}
