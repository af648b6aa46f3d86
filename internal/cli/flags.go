package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vxrun/vx/internal/suggest"
)

type flagKind int

const (
	boolFlag     flagKind = iota // --x, --x=true|false
	stringFlag                   // --x v, --x=v
	listFlag                     // repeatable --x v
	optionalFlag                 // --x or --x=v, never takes the next argument
)

type flagSpec struct {
	name  string
	kind  flagKind
	usage string
	arg   string // the value's name in help
}

// parsed holds a command line split into flags, positional arguments and
// the arguments after "--".
type parsed struct {
	set   map[string]bool
	vals  map[string][]string
	pos   []string
	after []string // after --
	help  bool
}

func (p *parsed) str(name string) string {
	v := p.vals[name]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// parseFlags accepts flags anywhere on the line, as --flag value or
// --flag=value; "--" ends the flags and what follows is passed to scripts.
func parseFlags(cmd string, specs []flagSpec, args []string) (*parsed, error) {
	p := &parsed{set: map[string]bool{}, vals: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.after = args[i+1:]
			break
		}
		if a == "-h" || a == "--help" {
			p.help = true
			continue
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			p.pos = append(p.pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		spec, ok := findFlag(specs, name)
		if !ok || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(name) > 1) || strings.HasPrefix(a, "---") {
			return nil, unknownFlag(cmd, a, specs)
		}
		switch spec.kind {
		case boolFlag:
			if hasVal {
				b, err := strconv.ParseBool(val)
				if err != nil {
					return nil, usagef("--%s takes true or false, not %q", name, val)
				}
				if !b {
					delete(p.set, name)
					continue
				}
			}
		case stringFlag, listFlag:
			if !hasVal {
				if i+1 >= len(args) {
					return nil, usagef("--%s needs a value: --%s %s", name, name, spec.arg)
				}
				i++
				val = args[i]
			}
			p.vals[name] = append(p.vals[name], val)
		case optionalFlag:
			if hasVal {
				p.vals[name] = append(p.vals[name], val)
			}
		}
		p.set[name] = true
	}
	return p, nil
}

func findFlag(specs []flagSpec, name string) (flagSpec, bool) {
	for _, s := range specs {
		if s.name == name {
			return s, true
		}
	}
	return flagSpec{}, false
}

func unknownFlag(cmd, arg string, specs []flagSpec) error {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
	}
	if best, ok := suggest.Closest(name, names); ok {
		return usagef("unknown flag %q; did you mean --%s? (vx help %s lists the flags)", arg, best, cmd)
	}
	return usagef("unknown flag %q; vx help %s lists the flags", arg, cmd)
}

// usageError is a mistake on the command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

func flagHelp(specs []flagSpec) string {
	var b strings.Builder
	for _, s := range specs {
		left := "--" + s.name
		switch s.kind {
		case stringFlag, listFlag:
			left += " " + s.arg
		case optionalFlag:
			if s.arg != "" {
				left += "[=" + s.arg + "]"
			}
		}
		fmt.Fprintf(&b, "  %-24s %s\n", left, s.usage)
	}
	return b.String()
}
