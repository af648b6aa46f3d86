package run

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"sync"
)

// LogOrder says how the output of a run of several tasks is laid out.
type LogOrder string

const (
	// LogStream prints each line as it comes, prefixed with its task.
	LogStream LogOrder = "stream"
	// LogGrouped prints each task's lines together, in one block, when the
	// task ends; persistent tasks, which do not end, are streamed.
	LogGrouped LogOrder = "grouped"
)

// maxBlockMemory is how much of one task's grouped output is held in
// memory; the rest waits in a temporary file, so a task that prints
// gigabytes costs disk, not memory.
var maxBlockMemory = 4 << 20

// block records the output of one task in grouped mode: whole lines, each
// tagged with the stream it was written to, in the order written.
type block struct {
	mu    sync.Mutex
	segs  []segment // in memory, in order
	size  int       // bytes in segs
	spill *os.File  // what comes after segs, once they are full
	sw    *bufio.Writer
	err   error // the first error writing the spill file
}

type segment struct {
	stderr bool
	data   []byte
}

// blockStream is one of a block's two streams.
type blockStream struct {
	b      *block
	stderr bool
}

func (s blockStream) Write(p []byte) (int, error) {
	s.b.add(s.stderr, p)
	return len(p), nil
}

func (b *block) add(stderr bool, p []byte) {
	if len(p) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spill == nil && b.err == nil && b.size+len(p) > maxBlockMemory {
		f, err := os.CreateTemp("", "vx-grouped-*.log")
		if err != nil {
			b.err = err
		} else {
			b.spill, b.sw = f, bufio.NewWriter(f)
		}
	}
	if b.spill == nil {
		// In memory: also when the spill file could not be made.
		if n := len(b.segs); n > 0 && b.segs[n-1].stderr == stderr {
			b.segs[n-1].data = append(b.segs[n-1].data, p...)
		} else {
			b.segs = append(b.segs, segment{stderr, append([]byte(nil), p...)})
		}
		b.size += len(p)
		return
	}
	if b.err != nil {
		return
	}
	var head [1 + binary.MaxVarintLen64]byte
	if stderr {
		head[0] = 1
	}
	n := binary.PutUvarint(head[1:], uint64(len(p)))
	if _, err := b.sw.Write(head[:1+n]); err != nil {
		b.err = err
		return
	}
	if _, err := b.sw.Write(p); err != nil {
		b.err = err
	}
}

// replay hands the recorded output to emit, in order, then removes the
// spill file. A spill file that could not be written or read back is an
// error after what could be replayed.
func (b *block) replay(emit func(stderr bool, p []byte) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.segs {
		if err := emit(s.stderr, s.data); err != nil {
			b.discard()
			return err
		}
	}
	err := b.err
	if b.spill != nil && err == nil {
		err = b.replaySpill(emit)
	}
	b.discard()
	return err
}

func (b *block) replaySpill(emit func(stderr bool, p []byte) error) error {
	if err := b.sw.Flush(); err != nil {
		return err
	}
	if _, err := b.spill.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReader(b.spill)
	var buf []byte
	for {
		kind, err := r.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return err
		}
		if uint64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return errors.Join(errors.New("grouped output: the temporary file was cut short"), err)
		}
		if err := emit(kind == 1, buf); err != nil {
			return err
		}
	}
}

// discard forgets the output and removes the spill file.
func (b *block) discard() {
	b.segs, b.size = nil, 0
	if b.spill != nil {
		b.spill.Close()
		os.Remove(b.spill.Name())
		b.spill, b.sw = nil, nil
	}
}

// writeBlock prints a task's grouped output as one block, with nothing
// from other tasks in between: it holds the output's lock throughout. In
// GitHub Actions (group set) the block is folded into ::group::title /
// ::endgroup::; a failed task's block is printed unfolded, so the failure
// shows without a click. A streamed line left open by a bare \r (a
// persistent task's progress bar) is ended first on a terminal, as
// [lockedWriter] does for any other writer.
func writeBlock(stdout, stderr *lockedWriter, title string, group bool, b *block) error {
	o := stdout.o
	o.mu.Lock()
	defer o.mu.Unlock()
	var werr error
	emit := func(l *lockedWriter, p []byte) {
		if werr != nil || len(p) == 0 {
			return
		}
		if o.crDst != nil && o.crFrom != b {
			if o.terminal {
				o.crDst.Write([]byte{'\n'})
				o.ended = o.crFrom
			}
			o.crDst = nil
		}
		_, werr = l.w.Write(p)
		if p[len(p)-1] == '\r' {
			o.crDst, o.crFrom = l.w, b
		} else if o.crFrom == b {
			o.crDst = nil
		}
	}
	if group {
		emit(stdout, []byte("::group::"+title+"\n"))
	}
	err := b.replay(func(toStderr bool, p []byte) error {
		if toStderr {
			emit(stderr, p)
		} else {
			emit(stdout, p)
		}
		return werr
	})
	if group {
		emit(stdout, []byte("::endgroup::\n"))
	}
	if err == nil {
		err = werr
	}
	return err
}
