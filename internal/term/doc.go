// Package term tells whether a file is a terminal, so vx colours output and
// hands a single task the terminal only when there is one.
package term
