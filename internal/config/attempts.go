package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// This file decodes a task's "timeout" and "retries" (vx run's --timeout
// and --retries take the same values: ParseTimeout, ParseRetries).

// ParseTimeout reads a timeout: a Go duration ("90s", "10m", "1h30m"), 0
// for no limit. It returns why s is not one, or "".
func ParseTimeout(s string) (time.Duration, string) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
			return 0, fmt.Sprintf("a duration needs a unit: write %q or %q", s+"s", s+"m")
		}
		return 0, `it takes a duration such as "90s", "10m" or "1h30m" (0 for no limit)`
	case d < 0:
		return 0, "a timeout cannot be negative (0 for no limit)"
	}
	return d, ""
}

// ParseRetries reads a number of retries: a whole number from 0 to
// [MaxRetries]. It returns why s is not one, or "".
func ParseRetries(s string) (int, string) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > MaxRetries {
		return 0, fmt.Sprintf("a whole number from 0 to %d", MaxRetries)
	}
	return n, ""
}

// FormatDuration writes d as a timeout is written: "10m" rather than
// Go's "10m0s", "1h" rather than "1h0m0s".
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

func decodeTimeout(name string, n *node) (time.Duration, *syntaxError) {
	if n.kind != kindString {
		hint := `write a duration such as "90s", "10m" or "1h30m" (0 for no limit)`
		if n.kind == kindNumber {
			hint = fmt.Sprintf("did you mean %q? (a duration needs a unit)", n.str+"s")
		}
		return 0, errHint(n.off, hint, `"timeout" of task %q must be a string, found %s`, name, n.describe())
	}
	d, reason := ParseTimeout(n.str)
	if reason != "" {
		return 0, errHint(n.off, reason, `invalid "timeout" of task %q: found %q`, name, n.str)
	}
	return d, nil
}

func decodeRetries(name string, n *node) (int, *syntaxError) {
	found := n.describe()
	switch n.kind {
	case kindNumber:
		if r, reason := ParseRetries(n.str); reason == "" {
			return r, nil
		}
		found = n.str
	case kindString:
		if _, reason := ParseRetries(n.str); reason == "" {
			return 0, errHint(n.off, fmt.Sprintf("did you mean %s?", n.str), `"retries" of task %q must be a number, found a string`, name)
		}
		found = strconv.Quote(n.str)
	}
	return 0, errHint(n.off, fmt.Sprintf("it takes a whole number from 0 to %d: how many more times a failed attempt runs", MaxRetries),
		`invalid "retries" of task %q: found %s`, name, found)
}

// checkAttempts refuses a timeout or retries on a persistent task, which
// runs until it is stopped.
func checkAttempts(t Task, name string, n *node) *syntaxError {
	if !t.Persistent {
		return nil
	}
	for _, m := range n.members {
		switch m.key {
		case "timeout":
			return errHint(m.keyOff, `remove it, or "persistent"; how long a server may take to be ready goes in "readyWhen": {..., "timeout": "60s"}`, `task %q is persistent: it runs until stopped and takes no "timeout"`, name)
		case "retries":
			return errHint(m.keyOff, `remove it, or "persistent"`, `task %q is persistent: it runs until stopped and is never retried`, name)
		}
	}
	return nil
}
