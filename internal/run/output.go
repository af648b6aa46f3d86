package run

import (
	"bytes"
	"io"
	"sync"
)

// lockedWriter serialises writes to one destination so that each Write of
// a whole line reaches it in one piece, never interleaved with another's.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// prefixWriter prefixes every line written to it and passes whole lines on
// to dst, one Write per line. A last line without a newline is held until
// Close, which ends it with one.
type prefixWriter struct {
	dst    *lockedWriter
	prefix []byte
	buf    []byte // the prefix, then the current incomplete line
}

func newPrefixWriter(dst *lockedWriter, prefix string) *prefixWriter {
	w := &prefixWriter{dst: dst, prefix: []byte(prefix)}
	w.buf = append(make([]byte, 0, len(prefix)+256), prefix...)
	return w
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.buf = append(w.buf, p...)
			break
		}
		w.buf = append(w.buf, p[:i+1]...)
		p = p[i+1:]
		if err := w.flush(); err != nil {
			return n - len(p), err
		}
	}
	return n, nil
}

func (w *prefixWriter) flush() error {
	_, err := w.dst.Write(w.buf)
	w.buf = append(w.buf[:0], w.prefix...)
	return err
}

// Close writes out a pending partial line, ending it with a newline.
func (w *prefixWriter) Close() error {
	if len(w.buf) == len(w.prefix) {
		return nil
	}
	w.buf = append(w.buf, '\n')
	return w.flush()
}

// ANSI colours for task prefixes, chosen to read on dark and light
// backgrounds; bold red is kept for failures.
var prefixColors = []string{"\x1b[36m", "\x1b[33m", "\x1b[32m", "\x1b[35m", "\x1b[34m", "\x1b[96m", "\x1b[93m", "\x1b[92m"}

const colorReset = "\x1b[0m"

// taskPrefix returns the prefix of task number i whose id is padded to
// width, coloured when color is set.
func taskPrefix(id string, width, i int, color bool) string {
	pad := width - len(id)
	if pad < 0 {
		pad = 0
	}
	s := id + string(bytes.Repeat([]byte{' '}, pad)) + " | "
	if color {
		return prefixColors[i%len(prefixColors)] + s + colorReset
	}
	return s
}
