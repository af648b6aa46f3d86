package workspace

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// pnpmWorkspaceFile declares a pnpm workspace; pnpmMisspelled is the name
// users reach for by mistake, which pnpm rejects and so do we.
const (
	pnpmWorkspaceFile = "pnpm-workspace.yaml"
	pnpmMisspelled    = "pnpm-workspace.yml"
)

// yamlLine matches the position prefix of go.yaml.in/yaml/v3 syntax errors;
// compiled on first use, not at every start.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line ([0-9]+): (.*)$`) })

// parsePnpmWorkspace reads a pnpm-workspace.yaml's bytes. declared is false
// when the file has no "packages" key (pnpm 10 then treats the directory as a
// single project, and so does vx); "packages:" with no value or an empty list
// declares a workspace of the root alone. Problems are *posError values.
func parsePnpmWorkspace(data []byte) (patterns []string, declared bool, err error) {
	patterns, declared, _, err = parsePnpmWorkspaceSettings(data)
	return patterns, declared, err
}

// parsePnpmWorkspaceSettings is parsePnpmWorkspace that also returns the
// settings vx follows (enablePrePostScripts, linkWorkspacePackages); a
// setting of another type than a boolean (or "deep") is ignored.
func parsePnpmWorkspaceSettings(data []byte) (patterns []string, declared bool, settings PMSettings, err error) {
	if patterns, settings, ok := parsePnpmWorkspaceFast(data); ok {
		return patterns, true, settings, nil
	}
	return parsePnpmWorkspaceYAML(data)
}

// parsePnpmWorkspaceYAML is parsePnpmWorkspaceSettings with the YAML
// library alone.
func parsePnpmWorkspaceYAML(data []byte) (patterns []string, declared bool, settings PMSettings, err error) {
	patterns, declared, top, err := parsePnpmWorkspaceDoc(data)
	if err != nil || top == nil || top.Kind != yaml.MappingNode {
		return patterns, declared, settings, err
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], resolveAlias(top.Content[i+1])
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
			continue
		}
		switch k.Value {
		case "enablePrePostScripts":
			settings.EnablePrePostScripts = npmrcBool(v.Value)
		case "linkWorkspacePackages":
			settings.LinkWorkspacePackages = npmrcBool(v.Value)
		}
	}
	return patterns, declared, settings, nil
}

func parsePnpmWorkspaceDoc(data []byte) (patterns []string, declared bool, top *yaml.Node, err error) {
	var doc yaml.Node
	if err := safeYAMLUnmarshal(data, &doc); err != nil {
		return nil, false, nil, yamlError(err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, false, nil, nil // empty file
	}
	top = doc.Content[0]
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		return nil, false, nil, nil
	}
	if top.Kind != yaml.MappingNode {
		return nil, false, nil, &posError{line: top.Line, col: top.Column, msg: "pnpm-workspace.yaml must hold a mapping, got " + yamlKind(top)}
	}
	var list *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k := top.Content[i]
		if k.Kind != yaml.ScalarNode || k.Value != "packages" {
			continue
		}
		if list != nil {
			return nil, false, nil, &posError{line: k.Line, col: k.Column, msg: `"packages" appears twice`}
		}
		list = resolveAlias(top.Content[i+1])
	}
	if list == nil {
		return nil, false, top, nil
	}
	switch {
	case list.Kind == yaml.ScalarNode && list.Tag == "!!null":
		return nil, true, top, nil
	case list.Kind != yaml.SequenceNode:
		return nil, false, nil, &posError{line: list.Line, col: list.Column, msg: `"packages" must be a list of patterns, got ` + yamlKind(list)}
	}
	patterns = make([]string, 0, len(list.Content))
	for _, item := range list.Content {
		item := resolveAlias(item)
		if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
			return nil, false, nil, &posError{line: item.Line, col: item.Column, msg: `"packages" must be a list of patterns, got an item that is ` + yamlKind(item)}
		}
		patterns = append(patterns, item.Value)
	}
	return patterns, true, top, nil
}

// safeYAMLUnmarshal turns a panic inside the YAML library into an error:
// Discover never panics, whatever the file holds.
func safeYAMLUnmarshal(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: cannot parse: %v", r)
		}
	}()
	return yaml.Unmarshal(data, v)
}

// yamlError turns a YAML library error into a *posError with the line of
// the problem, 1-based.
//
// The library's messages need correcting: its parser reports 0-based lines
// (its scanner 1-based ones), and both leave out a line that would read 0.
// The messages tell the two apart; errors of other kinds (invalid UTF-8, an
// unknown alias) carry no line and get none.
func yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if isYAMLParserError(msg) {
			line++
		}
	} else if isYAMLParserError(msg) || isYAMLScannerError(msg) {
		line = 1
	}
	return &posError{line: line, msg: "invalid YAML", err: errors.New(msg)}
}

func isYAMLParserError(msg string) bool {
	return strings.HasPrefix(msg, "did not find expected ") ||
		strings.HasPrefix(msg, "found duplicate %") ||
		msg == "found incompatible YAML document" ||
		msg == "found undefined tag handle"
}

func isYAMLScannerError(msg string) bool {
	return strings.HasPrefix(msg, "found ") ||
		strings.HasPrefix(msg, "could not find ") ||
		strings.HasSuffix(msg, "are not allowed in this context")
}

// resolveAlias follows YAML aliases (*name) to the node they stand for.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return "a scalar"
	}
	return "nothing"
}
