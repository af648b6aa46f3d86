//go:build !(linux && (amd64 || arm64))

package exec

// tracer is empty where tracing is not supported.
type tracer struct{}

func (p *Process) traceSetup(Spec) error { return ErrTraceUnsupported }
func (t *tracer) begin() error           { return ErrTraceUnsupported }
func (t *tracer) end() *Trace            { return &Trace{} }

// RunTraceShim says that tracing is not supported here.
func RunTraceShim(args []string, env []string) int {
	println("vx: " + ErrTraceUnsupported.Error())
	return 127
}
