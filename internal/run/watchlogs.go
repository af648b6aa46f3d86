package run

// logMode is the mode n's output is shown in by vx watch, as by vx run. A
// watched task's lines are always prefixed, so vx's own lines
// about it ("cache hit, replaying logs ...") carry no label of their own.
func (w *watchRun) logMode(n *Node) string { return logMode(w.o.OutputLogs, n) }
