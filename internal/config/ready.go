package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// DefaultReadyTimeout is how long a persistent task has to become ready
// when its "readyWhen" gives no "timeout".
const DefaultReadyTimeout = 60 * time.Second

// ReadyWhen is a persistent task's "readyWhen": when the tasks that depend
// on it may start. Exactly one of LineMatches, Port and URL is set.
type ReadyWhen struct {
	// LineMatches is a Go regular expression (RE2 syntax): the task is
	// ready once a line of its output, stdout or stderr, matches it.
	LineMatches string
	// Port: the task is ready once a TCP connection to localhost:Port
	// (127.0.0.1 or ::1) succeeds.
	Port int
	// URL: the task is ready once an HTTP GET of it answers 2xx or 3xx.
	// Plain http:// only.
	URL string
	// Timeout is how long the task has to become ready; 0 means
	// DefaultReadyTimeout.
	Timeout time.Duration
}

var readyKeys = []string{"lineMatches", "port", "url", "timeout"}

// Wait returns how long the task has to become ready.
func (r *ReadyWhen) Wait() time.Duration {
	if r.Timeout <= 0 {
		return DefaultReadyTimeout
	}
	return r.Timeout
}

// String describes the condition as the configuration writes it, for
// messages: `lineMatches "Listening on"`, `port 3000`, `url "http://..."`.
func (r *ReadyWhen) String() string {
	switch {
	case r.LineMatches != "":
		return "lineMatches " + strconv.Quote(r.LineMatches)
	case r.Port != 0:
		return "port " + strconv.Itoa(r.Port)
	default:
		return "url " + strconv.Quote(r.URL)
	}
}

func (r *ReadyWhen) value() map[string]any {
	v := map[string]any{}
	switch {
	case r.LineMatches != "":
		v["lineMatches"] = r.LineMatches
	case r.Port != 0:
		v["port"] = r.Port
	default:
		v["url"] = r.URL
	}
	if r.Timeout > 0 {
		v["timeout"] = FormatDuration(r.Timeout)
	}
	return v
}

func cloneReady(r *ReadyWhen) *ReadyWhen {
	if r == nil {
		return nil
	}
	c := *r
	return &c
}

// decodeReadyWhen reads a task's "readyWhen" object.
func decodeReadyWhen(name string, n *node) (*ReadyWhen, *syntaxError) {
	const shape = `{"lineMatches": "<regexp>"}, {"port": 3000} or {"url": "http://localhost:3000/health"}, with an optional "timeout": "60s"`
	if n.kind != kindObject {
		return nil, errHint(n.off, "write "+shape, `"readyWhen" of task %q must be an object, found %s`, name, n.describe())
	}
	r := &ReadyWhen{}
	var set []string
	for _, m := range n.members {
		v := m.val
		switch m.key {
		case "lineMatches":
			if v.kind != kindString {
				return nil, errAt(v.off, `"readyWhen.lineMatches" of task %q must be a string (a regular expression), found %s`, name, v.describe())
			}
			if v.str == "" {
				return nil, errAt(v.off, `"readyWhen.lineMatches" of task %q is empty: it would match any line`, name)
			}
			if _, err := regexp.Compile(v.str); err != nil {
				return nil, errAt(v.off, `invalid "readyWhen.lineMatches" %q of task %q: %s`, v.str, name, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
			}
			r.LineMatches = v.str
		case "port":
			p, err := strconv.Atoi(v.str)
			if v.kind != kindNumber || err != nil || p < 1 || p > 65535 {
				found := v.describe()
				if v.kind == kindNumber {
					found = v.str
				}
				hint := ""
				if v.kind == kindString {
					if q, err := strconv.Atoi(v.str); err == nil && q >= 1 && q <= 65535 {
						hint = fmt.Sprintf("did you mean %d?", q)
					}
				}
				return nil, errHint(v.off, hint, `"readyWhen.port" of task %q must be a port number from 1 to 65535, found %s`, name, found)
			}
			r.Port = p
		case "url":
			if v.kind != kindString {
				return nil, errAt(v.off, `"readyWhen.url" of task %q must be a string, found %s`, name, v.describe())
			}
			if reason := checkReadyURL(v.str); reason != "" {
				return nil, errAt(v.off, `invalid "readyWhen.url" %q of task %q: %s`, v.str, name, reason)
			}
			r.URL = v.str
		case "timeout":
			d, err := time.ParseDuration(v.str)
			if v.kind != kindString || err != nil || d <= 0 {
				found := v.describe()
				if v.kind == kindString {
					found = strconv.Quote(v.str)
				}
				hint := `a Go duration such as "30s", "2m" or "1m30s"`
				if v.kind == kindNumber {
					hint = fmt.Sprintf("did you mean %q?", v.str+"s")
				}
				return nil, errHint(v.off, hint, `"readyWhen.timeout" of task %q must be a positive duration, found %s`, name, found)
			}
			r.Timeout = d
			continue
		default:
			hint := didYouMean(m.key, readyKeys)
			if hint == "" {
				hint = "known keys are " + quotedList(readyKeys)
			}
			return nil, errHint(m.keyOff, hint, "unknown key %q in \"readyWhen\" of task %q", m.key, name)
		}
		set = append(set, m.key)
	}
	switch len(set) {
	case 0:
		return nil, errHint(n.off, "write "+shape, `"readyWhen" of task %q says nothing to wait for: it takes one of "lineMatches", "port" or "url"`, name)
	case 1:
		return r, nil
	}
	return nil, errHint(n.off, "keep one; a task that needs several servers can depend on each", `"readyWhen" of task %q has both %q and %q: it takes exactly one of "lineMatches", "port" or "url"`, name, set[0], set[1])
}

// checkReadyURL returns why s is not a URL a readiness probe can GET, or "".
func checkReadyURL(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "not a URL"
	case u.Scheme == "https":
		return `https is not supported: probe the server's plain http address, or its port with {"port": N}`
	case u.Scheme != "http":
		return `it must start with "http://"`
	case u.Host == "" || u.Hostname() == "":
		return "it has no host"
	case u.User != nil:
		return "credentials in the URL are not supported"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "its port must be from 1 to 65535"
		}
	}
	if strings.ContainsAny(s, " \r\n") {
		return "it contains spaces or line breaks"
	}
	return ""
}
