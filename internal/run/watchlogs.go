package run

// logMode is the mode n's output is shown in by vx watch, as by vx run:
// --output-logs (Options.OutputLogs), else the task's "outputLogs", else
// full. A watched task's lines are always prefixed, so vx's own lines
// about it ("cache hit, replaying logs ...") carry no label of their own.
func (w *watchRun) logMode(n *Node) string {
	switch {
	case w.o.OutputLogs != "":
		return w.o.OutputLogs
	case n.Config.OutputLogs != "":
		return n.Config.OutputLogs
	}
	return LogsFull
}
