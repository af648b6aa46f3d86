package evaluate

import (
	"encoding/json"
	"errors"
	"strings"
)

// sourceMap is a decoded source map (version 3), enough to map a position
// of the bundle back to its source.
type sourceMap struct {
	sources []string
	lines   [][]segment // per generated line (0-based), by generated column
}

// segment maps a generated column (0-based, UTF-16 code units) to a
// position of a source: line 0-based, column 0-based in UTF-16 code units.
type segment struct {
	genCol, src, line, col int
}

func parseSourceMap(data []byte) (*sourceMap, error) {
	var raw struct {
		Version  int      `json:"version"`
		Sources  []string `json:"sources"`
		Mappings string   `json:"mappings"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	if raw.Version != 3 {
		return nil, errors.New("not a version 3 source map")
	}
	m := &sourceMap{sources: raw.Sources}
	var src, line, col int
	for _, l := range strings.Split(raw.Mappings, ";") {
		var segs []segment
		genCol := 0
		for _, s := range strings.Split(l, ",") {
			if s == "" {
				continue
			}
			f, err := vlqs(s)
			if err != nil {
				return nil, err
			}
			genCol += f[0]
			if len(f) < 4 {
				continue // a segment without a source
			}
			src, line, col = src+f[1], line+f[2], col+f[3]
			segs = append(segs, segment{genCol, src, line, col})
		}
		m.lines = append(m.lines, segs)
	}
	return m, nil
}

// vlqs decodes the base64 VLQ fields of one segment.
func vlqs(s string) ([]int, error) {
	var out []int
	shift, v := 0, 0
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", s[i])
		if d < 0 {
			return nil, errors.New("invalid VLQ digit")
		}
		v += (d & 31) << shift
		if d&32 != 0 {
			shift += 5
			if shift > 30 {
				return nil, errors.New("VLQ value too large")
			}
			continue
		}
		n := v >> 1
		if v&1 != 0 {
			n = -n
		}
		out = append(out, n)
		shift, v = 0, 0
	}
	if shift != 0 {
		return nil, errors.New("truncated VLQ value")
	}
	return out, nil
}

// lookup maps a generated position (line 1-based, column 1-based in UTF-16
// code units, as V8 reports it) to a source and a position in it (line
// 1-based, column 0-based in UTF-16 code units). ok is false when nothing
// maps there.
func (m *sourceMap) lookup(line, col int) (src string, srcLine, srcCol int, ok bool) {
	if line < 1 || line > len(m.lines) {
		return "", 0, 0, false
	}
	segs := m.lines[line-1]
	best := -1
	for i, s := range segs {
		if s.genCol > col-1 {
			break
		}
		best = i
	}
	if best < 0 {
		return "", 0, 0, false
	}
	s := segs[best]
	if s.src < 0 || s.src >= len(m.sources) {
		return "", 0, 0, false
	}
	return m.sources[s.src], s.line + 1, s.col, true
}
