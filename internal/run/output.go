package run

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/vxrun/vx/internal/quote"
)

// output is vx's output during a run of several tasks: stdout and stderr,
// behind one lock. They share it because they very often reach the same
// pipe or terminal (vx run build 2>&1 | tee log): with a lock each, a long
// line on one and a short line on the other interleave, since writes of more
// than PIPE_BUF bytes to a pipe are not atomic.
//
// It also remembers the last line that ended with a bare carriage return (a
// progress bar): the cursor is then at the start of that line. On a
// terminal, the next line from anyone else would overwrite it in place, so a
// newline is written first. In a pipe nothing is added, so that what each
// task wrote can be rebuilt byte for byte from vx's output.
type output struct {
	mu       sync.Mutex
	terminal bool      // stdout and stderr are terminals
	crDst    io.Writer // where the last write ended with a bare \r; nil when none did
	crFrom   any       // who wrote it
	ended    any       // whose \r line a newline written for someone else ended
	// broken, when set, is told of every failed write before the error is
	// returned (Execute stops the run when the reader is gone).
	broken func(error)
}

// newOutput returns the two destinations of a run's output, which share one
// lock; terminal says they are terminals. Every write to either is one whole
// line (or, from vx itself, whole lines).
func newOutput(stdout, stderr io.Writer, terminal bool) (*lockedWriter, *lockedWriter) {
	o := &output{terminal: terminal}
	return &lockedWriter{o: o, w: stdout}, &lockedWriter{o: o, w: stderr}
}

// lockedWriter is one destination of an [output]. Its Write is for vx's own
// messages; task output goes through a [prefixWriter].
type lockedWriter struct {
	o *output
	w io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	return l.write(nil, p)
}

// write writes p for from (nil: vx itself) under the lock.
func (l *lockedWriter) write(from any, p []byte) (int, error) {
	o := l.o
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.crDst != nil && o.crFrom != from {
		if o.terminal {
			o.crDst.Write([]byte{'\n'})
			o.ended = o.crFrom
		}
		o.crDst = nil
	}
	n, err := l.w.Write(p)
	if err != nil && o.broken != nil {
		o.broken(err)
	}
	if len(p) > 0 && p[len(p)-1] == '\r' {
		o.crDst, o.crFrom = l.w, from
	} else if o.crFrom == from {
		o.crDst = nil
	}
	return n, err
}

// endCR ends with a newline the line from wrote last, which ended with a
// bare \r, when nothing has been written since (so "\r" and "\n" written
// apart still make one "\r\n"). It reports whether that line is now ended:
// by this newline, or by the one written on a terminal before someone
// else's line.
func (l *lockedWriter) endCR(from any) (bool, error) {
	o := l.o
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended == from {
		o.ended = nil
		return true, nil
	}
	if o.crDst == nil || o.crFrom != from {
		return false, nil
	}
	_, err := o.crDst.Write([]byte{'\n'})
	o.crDst = nil
	return true, err
}

// maxLine is the longest piece of a line a prefixWriter holds. A longer line
// is written in pieces of at most this many bytes, each on its own output
// line; every piece after the first is marked as continued. It bounds vx's
// memory whatever a task prints.
const maxLine = 64 << 10

// prefixWriter prefixes every line written to it and passes whole lines on
// to dst, one write per line. A line ends at "\n", "\r\n" or a bare "\r"
// (which a progress bar uses to redraw its line: the prefix is written again
// before each redraw). A line longer than [maxLine] is cut, at a character
// boundary where it can be, and ended with a newline; the next piece starts
// with the continuation prefix (the prefix with its last '|' replaced by
// '+'). A last line without an end is held until Close, which ends it with
// a newline.
//
// Nothing else is added or dropped: what the task wrote is the lines'
// contents and ends in order, less the newlines that end cut pieces, plus a
// final newline when the output did not end with one.
type prefixWriter struct {
	dst          *lockedWriter
	prefix, cont []byte
	buf          []byte // the prefix (or cont), then the current incomplete line
	plen         int    // length of the prefix at the head of buf
	afterCR      bool   // the last line written ended with a bare \r, and nothing has come since
}

func newPrefixWriter(dst *lockedWriter, prefix string) *prefixWriter {
	cont := prefix
	if i := strings.LastIndexByte(prefix, '|'); i >= 0 {
		cont = prefix[:i] + "+" + prefix[i+1:]
	}
	w := &prefixWriter{dst: dst, prefix: []byte(prefix), cont: []byte(cont), plen: len(prefix)}
	w.buf = append(make([]byte, 0, len(prefix)+256), prefix...)
	return w
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if w.afterCR && p[0] == '\n' {
			// A newline right after a line ended by a bare \r: the two
			// make "\r\n", perhaps written apart. It ends that line,
			// unless another line came between; then it is an empty line.
			w.afterCR = false
			ended, err := w.dst.endCR(w)
			if err != nil {
				return n - len(p), err
			}
			if ended {
				p = p[1:]
				continue
			}
		}
		w.afterCR = false
		room := maxLine - (len(w.buf) - w.plen)
		chunk := p[:min(len(p), room)]
		i := lineEnd(chunk)
		if i < 0 {
			w.buf = append(w.buf, chunk...)
			p = p[len(chunk):]
			if len(w.buf)-w.plen >= maxLine {
				if err := w.cut(); err != nil {
					return n - len(p), err
				}
			}
			continue
		}
		end, bare := i+1, p[i] == '\r'
		if bare && i+1 < len(p) && p[i+1] == '\n' {
			end, bare = i+2, false
		}
		w.buf = append(w.buf, p[:end]...)
		p = p[end:]
		if err := w.flush(false); err != nil {
			return n - len(p), err
		}
		w.afterCR = bare
	}
	return n, nil
}

// lineEnd returns the index of the first \r or \n in b, or -1: two
// IndexByte scans (vectorised) rather than one IndexAny (byte by byte).
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	head := b
	if i >= 0 {
		head = b[:i]
	}
	if j := bytes.IndexByte(head, '\r'); j >= 0 {
		return j
	}
	return i
}

// cut writes out a line that reached maxLine without an end, keeping a
// character split by the cut for the next piece.
func (w *prefixWriter) cut() error {
	line := w.buf[w.plen:]
	keep := 0
	for k := 1; k <= utf8.UTFMax-1 && k <= len(line); k++ {
		c := line[len(line)-k]
		if c < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(c) {
			if r, _ := utf8.DecodeRune(line[len(line)-k:]); r == utf8.RuneError {
				keep = k // an incomplete character: carry it over
			}
			break
		}
	}
	var carry [utf8.UTFMax]byte
	nc := copy(carry[:], line[len(line)-keep:])
	w.buf = append(w.buf[:len(w.buf)-keep], '\n')
	err := w.flush(true)
	w.buf = append(w.buf, carry[:nc]...)
	return err
}

// flush writes buf as one line and starts the next one, with the
// continuation prefix when cont is set.
func (w *prefixWriter) flush(cont bool) error {
	_, err := w.dst.write(w, w.buf)
	next := w.prefix
	if cont {
		next = w.cont
	}
	w.buf = append(w.buf[:0], next...)
	w.plen = len(next)
	return err
}

// Close ends the task's output with a newline when it does not end with
// one: it writes out a pending partial line, ending it with a newline, or
// ends a last line that ended with a bare \r.
func (w *prefixWriter) Close() error {
	if w.afterCR {
		w.afterCR = false
		if ended, err := w.dst.endCR(w); ended || err != nil {
			return err
		}
		w.buf = append(w.buf, '\n') // another line came between: an empty line
		return w.flush(false)
	}
	if len(w.buf) == w.plen {
		return nil
	}
	w.buf = append(w.buf, '\n')
	return w.flush(false)
}

// ANSI colours for task prefixes, chosen to read on dark and light
// backgrounds; bold red is kept for failures.
var prefixColors = []string{"\x1b[36m", "\x1b[33m", "\x1b[32m", "\x1b[35m", "\x1b[34m", "\x1b[96m", "\x1b[93m", "\x1b[92m"}

const colorReset = "\x1b[0m"

// taskPrefix returns the prefix of task number i: its id as vx shows names
// ([quote.Name]), padded with spaces to width terminal columns, then " | ";
// coloured when color is set.
func taskPrefix(id string, width, i int, color bool) string {
	shown := quote.Name(id)
	pad := max(0, width-quote.Width(shown))
	s := shown + strings.Repeat(" ", pad) + " | "
	if color {
		return prefixColors[i%len(prefixColors)] + s + colorReset
	}
	return s
}

// prefixWidth is the width, in terminal columns, that the prefixes of ids
// are padded to.
func prefixWidth(ids []string) int {
	width := 0
	for _, id := range ids {
		width = max(width, quote.Width(quote.Name(id)))
	}
	return width
}
