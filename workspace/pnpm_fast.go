package workspace

import "strings"

// parsePnpmWorkspaceFast reads the pnpm-workspace.yaml most workspaces
// have, without the YAML library, whose parse is a visible part of a
// one-task run: a "packages:" key at the left margin followed by its items,
// one per line ("- pattern", plain, 'single' or "double" quoted, without
// escapes), the settings vx follows as plain words, blank lines and whole
// comment lines, in printable ASCII. ok is false for anything else (other
// keys, flow lists, anchors, tags, trailing comments, tabs, CR, any byte
// outside ASCII, an empty or absent list, ...), which parsePnpmWorkspaceSettings
// then gives the YAML library; when ok, its answer is the library's.
func parsePnpmWorkspaceFast(data []byte) (patterns []string, settings PMSettings, ok bool) {
	for _, c := range data {
		if (c < ' ' || c > '~') && c != '\n' {
			return nil, settings, false // tabs, CR, control characters, anything not ASCII (the library breaks lines at U+2028)
		}
	}
	text := string(data)
	declared := false
	inList := false // the lines after "packages:"
	indent := -1    // the items' indentation
	seenPrePost, seenLink := false, false
	for line := range strings.SplitSeq(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case trimmed == "" && line == "":
			continue
		case trimmed == "" || strings.HasSuffix(line, " "):
			return nil, settings, false // trailing spaces: left to the library
		case trimmed[0] == '#':
			continue
		}
		if item, isItem := strings.CutPrefix(trimmed, "- "); isItem && inList {
			at := len(line) - len(trimmed)
			if indent < 0 {
				indent = at
			}
			v, ok := yamlFastScalar(item)
			if !ok || at != indent {
				return nil, settings, false
			}
			patterns = append(patterns, v)
			continue
		}
		if line != trimmed {
			return nil, settings, false // indented, not an item
		}
		inList = false
		key, value, found := strings.Cut(line, ":")
		switch {
		case !found:
			return nil, settings, false
		case key == "packages" && value == "" && !declared:
			declared, inList = true, true
		case (key == "enablePrePostScripts" && !seenPrePost || key == "linkWorkspacePackages" && !seenLink) && plainWord(value):
			v := npmrcBool(value[1:])
			if key == "enablePrePostScripts" {
				seenPrePost, settings.EnablePrePostScripts = true, v
			} else {
				seenLink, settings.LinkWorkspacePackages = true, v
			}
		default:
			return nil, settings, false
		}
	}
	if !declared || len(patterns) == 0 {
		return nil, settings, false
	}
	return patterns, settings, true
}

// plainWord reports whether v is " " and a lower-case word: a setting's
// value the library reads as that word.
func plainWord(v string) bool {
	if len(v) < 2 || v[0] != ' ' {
		return false
	}
	for _, c := range v[1:] {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// yamlFastScalar reads an item's text as the library would read it into
// a string: quoted without escapes, or plain of characters that start no
// YAML syntax; ok is false otherwise.
func yamlFastScalar(s string) (string, bool) {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') {
		q := s[0]
		inner := s[1 : len(s)-1]
		if s[len(s)-1] != q || strings.IndexByte(inner, q) >= 0 || strings.IndexByte(inner, '\\') >= 0 || strings.Contains(inner, "  ") {
			return "", false
		}
		return inner, true
	}
	if s == "" || s == "null" || s == "Null" || s == "NULL" {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '/':
		case i > 0 && (c == '*' || c == '-' || c == '@' || c == '+'):
		default:
			return "", false
		}
	}
	return s, true
}
